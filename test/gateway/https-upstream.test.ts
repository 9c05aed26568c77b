import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CONFIG, testGateway, startGatewayOf } from '../helpers/gateway-app.js';
import { startHttpsTarget } from '../helpers/https-target.js';

/**
 * A container whose upstream is an https tagging server, on both engines: the request reaches it over TLS verified
 * against the CAs Tagport trusts (EXTRA_CA_CERTS), with its body whether the client gave a length or streamed it;
 * an upstream whose certificate no trusted CA signed is never sent the request.
 */
describe.each(['node', 'nginx'] as const)('an https upstream (%s engine)', (engine) => {
  let t: TestApp;
  let base: string;
  let trusted: Awaited<ReturnType<typeof startHttpsTarget>>;
  let untrusted: Awaited<ReturnType<typeof startHttpsTarget>>;
  const hosts: Record<'trusted' | 'untrusted', string> = { trusted: '', untrusted: '' };
  const client = new Agent({ keepAliveTimeout: 1_000 });

  beforeAll(async () => {
    trusted = await startHttpsTarget((received) => ({ status: 200, body: `saw ${received.path} ${received.body}` }));
    untrusted = await startHttpsTarget(() => ({ status: 200, body: 'never' }));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      outboundCaCertificates: [trusted.ca],
      gateway: testGateway({ engine, tlsPort: null }),
    });
    const { token } = await t.tenantWithKey('business');
    for (const [name, target] of [
      ['trusted', trusted],
      ['untrusted', untrusted],
    ] as const) {
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: { name, region: 'eu-central', config: CONFIG, upstream_url: target.url('/sgtm') },
      });
      expect(created.statusCode, created.body).toBe(201);
      hosts[name] = created.json().default_hostname;
    }
    await t.app.services.containerWorker.idle();
    base = await startGatewayOf(t, engine);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await client.close();
    await trusted?.close();
    await untrusted?.close();
  });

  const send = (host: string, body: string | Readable) =>
    request(`${base}/g/collect?v=2`, { method: 'POST', headers: { host }, body, dispatcher: client }).then(
      async (response) => ({ status: response.statusCode, body: await response.body.text() }),
    );

  it('relays over verified TLS, with the body the client gave a length for and one it streamed', async () => {
    expect(await send(hosts.trusted, 'en=page_view')).toEqual({
      status: 200,
      body: 'saw /sgtm/g/collect?v=2 en=page_view',
    });
    const streamed = await send(hosts.trusted, Readable.from([Buffer.from('en=pur'), Buffer.from('chase')]));
    expect(streamed).toEqual({ status: 200, body: 'saw /sgtm/g/collect?v=2 en=purchase' });
    const [first] = trusted.received;
    expect(first.headers).toMatchObject({ host: new URL(trusted.url('/')).host, 'x-forwarded-host': hosts.trusted });
  });

  it('never sends the request to an upstream whose certificate no trusted CA signed', async () => {
    const answer = await send(hosts.untrusted, 'en=page_view');
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body).error.code).toBe('upstream_unreachable');
    expect(untrusted.received).toEqual([]);
  });
});
