import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { SecretBox } from '../../../src/lib/secrets.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { testGateway } from '../../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
const KEY_HEX = 'ab'.repeat(32);

describe('ACME configuration', () => {
  it('requires SECRETS_KEY when ACME_DIRECTORY_URL is set', () => {
    expect(() => loadConfig({ ACME_DIRECTORY_URL: 'https://acme.test/dir' })).toThrow(ConfigError);
    expect(() => loadConfig({ ACME_DIRECTORY_URL: 'https://acme.test/dir' })).toThrow(/SECRETS_KEY must be set/);
  });

  it('accepts a 32-byte SECRETS_KEY as hex or base64 and refuses other lengths', () => {
    expect(loadConfig({ SECRETS_KEY: KEY_HEX }).secretsKey).toEqual(Buffer.alloc(32, 0xab));
    expect(loadConfig({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).secretsKey).toEqual(Buffer.alloc(32, 7));
    expect(() => loadConfig({ SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY must be 32 bytes/);
  });

  it('reads the directory, e-mail and renewal fraction', () => {
    const config = loadConfig({
      ACME_DIRECTORY_URL: 'https://acme.test/dir',
      ACME_EMAIL: 'ops@shop.test',
      SECRETS_KEY: KEY_HEX,
    });
    expect(config.acme).toMatchObject({ directoryUrl: 'https://acme.test/dir', email: 'ops@shop.test' });
    expect(config.acme?.renewAfterFraction).toBeCloseTo(2 / 3);
    expect(loadConfig({}).acme).toBeNull();
  });
});

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('-----BEGIN PRIVATE KEY-----abc', 'certificate-key:dom_1');
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(box.open(sealed, 'certificate-key:dom_1')).toBe('-----BEGIN PRIVATE KEY-----abc');
  });

  it('refuses another purpose or another key', () => {
    const sealed = box.seal('secret', 'certificate-key:dom_1');
    expect(() => box.open(sealed, 'certificate-key:dom_2')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed, 'certificate-key:dom_1')).toThrow();
  });
});

describe('a verified domain without an ACME directory', () => {
  let t: TestApp;
  let dns: TestDns;

  beforeAll(async () => {
    dns = await startDns();
    t = await startTestApp('pglite', {
      runWorkers: false,
      gateway: testGateway({ publicIps: ['127.0.0.1'], logSampleRate: 0 }),
      dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    dns?.close();
  });

  it('says its certificate is not_requested and orders none', async () => {
    const tenant = await t.tenantWithKey('business');
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token: tenant.token,
      payload: { name: 'Shop', region: 'eu-central', config: CONFIG },
    });
    const created = await t.inject({
      method: 'POST',
      url: '/api/domains/',
      token: tenant.token,
      payload: { hostname: 'data.plain-shop.test', container_id: container.json().id },
    });
    const domain = created.json();
    const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
    dns.records.set(domain.hostname, [{ type: 'A', value: '127.0.0.1' }]);
    dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    const verified = await t.inject({ method: 'POST', url: `/api/domains/${domain.id}/verify/`, token: tenant.token });

    expect(verified.json()).toMatchObject({
      status: 'active',
      certificate: { status: 'not_requested', issuer: null, not_before: null, not_after: null, last_error: null },
    });
    expect(await t.app.services.certificates.issueDue()).toBe(0);
  });
});
