import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** Monitors and webhooks call out: in production settings both refuse plain http and private addresses. */
export async function expectOutboundUrlRules(
  t: TestApp,
  path: string,
  body: (url: string) => object,
  param: string,
): Promise<void> {
  const tenant = await t.tenantWithKey('business');
  const http = await t.inject({
    method: 'POST',
    url: path,
    token: tenant.token,
    payload: body('http://example.com/'),
  });
  expect(http.statusCode).toBe(400);
  expect(http.json().error).toMatchObject({ code: 'https_required', param });
  for (const url of ['https://127.0.0.1/', 'https://10.1.2.3/', 'https://169.254.169.254/', 'https://[::1]/']) {
    const response = await t.inject({ method: 'POST', url: path, token: tenant.token, payload: body(url) });
    expect(response.statusCode, url).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'url_not_allowed', param });
  }
}
