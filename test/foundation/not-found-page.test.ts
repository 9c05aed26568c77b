import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('unknown pages and the favicon', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('answers a browser asking for an unknown page with an HTML 404', async () => {
    const response = await t.inject({ method: 'GET', url: '/no-such-page', headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('Page not found');
    expect(response.body).toContain('<code>/no-such-page</code>');
  });

  it('keeps JSON for the API and for clients that do not ask for HTML', async () => {
    const api = await t.inject({ method: 'GET', url: '/api/no-such-thing/', headers: { accept: BROWSER_ACCEPT } });
    expect(api.statusCode).toBe(404);
    expect(api.json().error.code).toBe('route_not_found');
    const script = await t.inject({ method: 'GET', url: '/no-such-page', headers: { accept: 'application/json' } });
    expect(script.json().error.code).toBe('route_not_found');
    const escaped = await t.inject({ method: 'GET', url: '/%3Cb%3Ex', headers: { accept: BROWSER_ACCEPT } });
    expect(escaped.body).not.toContain('<b>x');
  });

  it('serves a favicon, linked from the pages', async () => {
    for (const url of ['/favicon.ico', '/favicon.svg']) {
      const icon = await t.inject({ method: 'GET', url });
      expect(icon.statusCode, url).toBe(200);
      expect(icon.headers['content-type']).toBe('image/svg+xml');
      expect(icon.body).toContain('<svg');
    }
    const login = await t.inject({ method: 'GET', url: '/check' });
    expect(login.body).toContain('<link rel="icon" href="/favicon.svg"');
  });
});
