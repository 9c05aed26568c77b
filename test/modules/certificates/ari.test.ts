import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainCertificates } from '../../../src/db/schema.js';
import { certId, parseRenewalInfo, renewalInfoRecheckMs } from '../../../src/modules/certificates/ari.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { type AriCa, referenceCertId, startAriCa } from '../../helpers/ari-ca.js';
import { backends, type Backend } from '../../helpers/database.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { CONFIG, testGateway } from '../../helpers/gateway-app.js';
import { pebbleInstalled, startPebble, type Pebble } from '../../helpers/pebble.js';
import { freePort } from '../../helpers/processes.js';

/** Pebble issues for an hour; our own rule renews at days-51-to-60-like minutes 34 to 40 of it. */
const VALIDITY_SECONDS = 3600;
const RENEW_AFTER_FRACTION = 2 / 3;
const HOUR = 3_600_000;
const SECOND = 1000;

/** What each set-up started; afterAll stops it all, also after a beforeAll that gave up halfway. */
const running: Array<() => Promise<void> | void> = [];

/** Pebble behind the ARI stand-in, a DNS server, and an app on `backend` ordering from the stand-in. */
async function certifyingApp(backend: Backend, offersRenewalInfo: boolean) {
  const dns: TestDns = await startDns();
  running.push(() => dns.close());
  const gatewayPort = await freePort();
  const pebble: Pebble = await startPebble({
    httpPort: gatewayPort,
    dnsPort: dns.port,
    validitySeconds: VALIDITY_SECONDS,
  });
  running.push(() => pebble.stop());
  const ca: AriCa = await startAriCa(pebble, { offersRenewalInfo });
  running.push(() => ca.stop());
  const t: TestApp = await startTestApp(backend, {
    runWorkers: false,
    gateway: testGateway({ port: gatewayPort, publicIps: ['127.0.0.1'], logSampleRate: 0 }),
    dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
    secretsKey: randomBytes(32),
    acme: {
      directoryUrl: ca.directoryUrl,
      email: null,
      caCertificates: [ca.directoryCa],
      renewAfterFraction: RENEW_AFTER_FRACTION,
      retryBaseMs: 60_000,
      retryMaxMs: 600_000,
      pollMs: 60_000,
    },
  });
  running.push(() => t.close());
  await t.app.services.gateway.listen(gatewayPort, '127.0.0.1');
  const { token } = await t.tenantWithKey('business');
  const api = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const response = await t.inject({ method, url, payload, token });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  };
  const containerId = (await api('POST', '/api/containers/', { name: 'Shop', region: 'eu-central', config: CONFIG }))
    .id as string;
  let counter = 0;
  return {
    t,
    ca,
    /** Adds a custom domain pointed at the gateway and verifies it: the next step orders its certificate. */
    async activeDomain(): Promise<{ id: string; hostname: string }> {
      const hostname = `data${++counter}.${offersRenewalInfo ? 'ari' : 'plain'}-${backend}.test`;
      const domain = await api('POST', '/api/domains/', { hostname, container_id: containerId });
      const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
      dns.records.set(hostname, [{ type: 'A', value: '127.0.0.1' }]);
      dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
      expect((await api('POST', `/api/domains/${domain.id}/verify/`)).status).toBe('active');
      return { id: domain.id, hostname };
    },
    async row(id: string) {
      const [row] = await t.database.db.select().from(domainCertificates).where(eq(domainCertificates.domainId, id));
      return row;
    },
    /** What the passing of time does: the certificate's renewal window check (or its renewal) is due now. */
    async due(id: string, column: 'renewal_info_check_at' | 'next_attempt_at') {
      await t.database.db.execute(
        sql`update domain_certificates set ${sql.identifier(column)} = now() - interval '1 second' where domain_id = ${id}`,
      );
    },
  };
}

async function stopAll() {
  for (const stop of running.splice(0).reverse()) await stop();
}

/** Where our own rule puts the renewal of a certificate (renewalAt): the tenth of its lifetime before the fraction. */
function localRange(row: { notBefore: Date | null; notAfter: Date | null }) {
  const notBefore = row.notBefore!.getTime();
  const lifetime = row.notAfter!.getTime() - notBefore;
  return {
    earliest: notBefore + lifetime * (RENEW_AFTER_FRACTION - 0.1) - SECOND,
    latest: notBefore + lifetime * RENEW_AFTER_FRACTION + SECOND,
  };
}

describe.runIf(pebbleInstalled).each(backends)(
  'ACME Renewal Information on %s (Pebble behind an ARI CA)',
  (backend) => {
    let app: Awaited<ReturnType<typeof certifyingApp>>;
    let domain: { id: string; hostname: string };

    beforeAll(async () => {
      app = await certifyingApp(backend, true);
    }, 60_000);
    afterAll(stopAll);

    it("renews at a time inside the window the CA suggests, and says so with the CA's explanation", async () => {
      const window = { start: new Date(Date.now() + 5 * 60_000), end: new Date(Date.now() + 10 * 60_000) };
      app.ca.state.window = () => window;
      app.ca.state.explanationUrl = 'https://ca.test/why-renew';
      app.ca.state.retryAfter = '7200';
      domain = await app.activeDomain();

      const before = Date.now();
      expect(await app.t.app.services.certificates.issueDue()).toBe(1);

      const row = await app.row(domain.id);
      expect(row.status).toBe('issued');
      const issuedId = referenceCertId(row.certificatePem!);
      // Asked right after issuing, about that certificate (certID as the CA computes it), and about nothing else.
      expect(app.ca.asked).toEqual([issuedId]);
      expect(app.ca.issued.has(issuedId)).toBe(true);
      expect(row.renewalSource).toBe('ari');
      expect(row.renewalExplanationUrl).toBe('https://ca.test/why-renew');
      expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(window.start.getTime());
      expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(window.end.getTime());
      // Our own rule would have chosen minutes 34 to 40 of the hour: the CA's window is what counts.
      expect(row.nextAttemptAt.getTime()).toBeLessThan(localRange(row).earliest);
      // Asked again when the CA's Retry-After says (two hours here).
      expect(row.renewalInfoCheckAt!.getTime()).toBeGreaterThanOrEqual(before + 2 * HOUR - SECOND);
      expect(row.renewalInfoCheckAt!.getTime()).toBeLessThanOrEqual(Date.now() + 2 * HOUR + SECOND);
      expect(app.ca.orders.at(-1)).toEqual({ identifiers: [domain.hostname], replaces: null });
    }, 60_000);

    it('renews at the next step once the CA moves the window into the past, naming the old certificate in replaces', async () => {
      const old = await app.row(domain.id);
      const oldId = referenceCertId(old.certificatePem!);
      // What a CA does before revoking certificates en masse: their windows end in the past.
      app.ca.state.windows.set(oldId, { start: new Date(Date.now() - 2 * HOUR), end: new Date(Date.now() - HOUR) });
      const next = { start: new Date(Date.now() + 20 * 60_000), end: new Date(Date.now() + 25 * 60_000) };
      app.ca.state.window = () => next;

      // Not asked again before the CA's Retry-After: nothing happens.
      const asked = app.ca.asked.length;
      expect(await app.t.app.services.certificates.issueDue()).toBe(0);
      expect(app.ca.asked).toHaveLength(asked);

      await app.due(domain.id, 'renewal_info_check_at');
      expect(await app.t.app.services.certificates.issueDue()).toBe(1);

      expect(app.ca.asked.slice(asked, asked + 1)).toEqual([oldId]);
      expect(app.ca.orders.at(-1)).toEqual({ identifiers: [domain.hostname], replaces: oldId });
      const renewed = await app.row(domain.id);
      expect(renewed.status).toBe('issued');
      expect(renewed.certificatePem).not.toBe(old.certificatePem);
      expect(renewed.renewalSource).toBe('ari');
      expect(renewed.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(next.start.getTime());
      expect(renewed.nextAttemptAt.getTime()).toBeLessThanOrEqual(next.end.getTime());
      // Every certID Tagport asked about or named was one of a certificate the CA issued.
      for (const id of [...app.ca.asked, oldId]) expect(app.ca.issued.has(id)).toBe(true);
    }, 60_000);

    it('falls back to its own renewal time when the CA answers 500, and takes the window once it answers', async () => {
      app.ca.state.failWith = 500;
      app.ca.state.explanationUrl = null;
      const failing = await app.activeDomain();
      const before = Date.now();
      expect(await app.t.app.services.certificates.issueDue()).toBe(1);

      const row = await app.row(failing.id);
      expect(row.status).toBe('issued');
      expect(app.ca.asked.at(-1)).toBe(referenceCertId(row.certificatePem!));
      expect(row.renewalSource).toBe('local');
      expect(row.renewalExplanationUrl).toBeNull();
      const { earliest, latest } = localRange(row);
      expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(earliest);
      expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(latest);
      // Asked again an hour after a failure.
      expect(row.renewalInfoCheckAt!.getTime()).toBeGreaterThanOrEqual(before + HOUR - SECOND);
      expect(row.renewalInfoCheckAt!.getTime()).toBeLessThanOrEqual(Date.now() + HOUR + SECOND);

      // Failing again keeps the renewal where it is.
      await app.due(failing.id, 'renewal_info_check_at');
      await app.t.app.services.certificates.issueDue();
      const still = await app.row(failing.id);
      expect(still.nextAttemptAt.getTime()).toBe(row.nextAttemptAt.getTime());
      expect(still.renewalSource).toBe('local');

      // Once the CA answers, its window wins; its Retry-After is held to between an hour and a day.
      app.ca.state.failWith = null;
      app.ca.state.retryAfter = '30';
      const window = { start: new Date(Date.now() + 60_000), end: new Date(Date.now() + 120_000) };
      app.ca.state.window = () => window;
      await app.due(failing.id, 'renewal_info_check_at');
      const checked = Date.now();
      await app.t.app.services.certificates.issueDue();
      const answered = await app.row(failing.id);
      expect(answered.renewalSource).toBe('ari');
      expect(answered.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(window.start.getTime());
      expect(answered.nextAttemptAt.getTime()).toBeLessThanOrEqual(window.end.getTime());
      expect(answered.renewalInfoCheckAt!.getTime()).toBeGreaterThanOrEqual(checked + HOUR - SECOND);
      expect(answered.renewalInfoCheckAt!.getTime()).toBeLessThanOrEqual(Date.now() + HOUR + SECOND);
    }, 60_000);
  },
);

describe.runIf(pebbleInstalled).each(backends)('a CA without renewal information on %s', (backend) => {
  let app: Awaited<ReturnType<typeof certifyingApp>>;

  beforeAll(async () => {
    app = await certifyingApp(backend, false);
  }, 60_000);
  afterAll(stopAll);

  it('renews by its own rule, never asks for a window, and sends no replaces', async () => {
    const domain = await app.activeDomain();
    expect(await app.t.app.services.certificates.issueDue()).toBe(1);
    const row = await app.row(domain.id);
    expect(row).toMatchObject({ status: 'issued', renewalSource: 'local', renewalInfoCheckAt: null });
    const { earliest, latest } = localRange(row);
    expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(earliest);
    expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(latest);

    await app.due(domain.id, 'next_attempt_at');
    expect(await app.t.app.services.certificates.issueDue()).toBe(1);
    expect((await app.row(domain.id)).certificatePem).not.toBe(row.certificatePem);
    expect(app.ca.orders).toEqual([
      { identifiers: [domain.hostname], replaces: null },
      { identifiers: [domain.hostname], replaces: null },
    ]);
    expect(app.ca.asked).toEqual([]);
  }, 60_000);
});

describe('certID of a certificate (RFC 9773 §4.1)', () => {
  let directory: string;
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-certid-'));
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl('req', '-x509', ...ec, '-days', '2', '-subj', '/CN=Test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
    openssl('req', ...ec, '-subj', '/CN=leaf', '-keyout', 'leaf.key', '-out', 'leaf.csr');
    fs.writeFileSync(path.join(directory, 'ext'), 'authorityKeyIdentifier=keyid\nsubjectAltName=DNS:data.shop.test\n');
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  /** A leaf signed by the test CA with this serial, and its AKI keyIdentifier and serial as openssl prints them. */
  function leaf(serial: string) {
    const pem = openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      serial,
      '-days',
      '1',
      '-extfile',
      'ext',
    );
    fs.writeFileSync(path.join(directory, 'leaf.pem'), pem);
    const printed = openssl('x509', '-in', 'leaf.pem', '-noout', '-serial', '-ext', 'authorityKeyIdentifier');
    const serialHex = /serial=([0-9A-F]+)/i.exec(printed)![1];
    const keyIdHex = /((?:[0-9A-F]{2}:)+[0-9A-F]{2})/i.exec(printed)![1].replaceAll(':', '');
    return { pem, serialHex, keyIdHex };
  }

  it('is the base64url of the AKI keyIdentifier and of the DER serial, a leading zero kept', () => {
    const { pem, serialHex, keyIdHex } = leaf('0x87654321');
    expect(serialHex).toBe('87654321');
    const keyId = Buffer.from(keyIdHex, 'hex').toString('base64url');
    // RFC 9773's own example serial: 0x87654321 is DER 00 87 65 43 21, "AIdlQyE".
    expect(certId(pem)).toBe(`${keyId}.AIdlQyE`);
    // A chain names its first certificate.
    expect(certId(pem + fs.readFileSync(path.join(directory, 'ca.pem'), 'utf8'))).toBe(`${keyId}.AIdlQyE`);
  });

  it('takes the serial as it is when its high bit is clear', () => {
    const { pem, serialHex, keyIdHex } = leaf('0x0123abcd');
    expect(serialHex).toBe('0123ABCD');
    expect(certId(pem)).toBe(
      `${Buffer.from(keyIdHex, 'hex').toString('base64url')}.${Buffer.from(serialHex, 'hex').toString('base64url')}`,
    );
  });

  it('reads a window only when it is one, and holds Retry-After to between an hour and a day', () => {
    const window = { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' };
    expect(parseRenewalInfo({ suggestedWindow: window, explanationURL: 'https://ca.test/x' })).toEqual({
      start: new Date(window.start),
      end: new Date(window.end),
      explanationUrl: 'https://ca.test/x',
    });
    expect(parseRenewalInfo({ suggestedWindow: { start: window.end, end: window.start } })).toBeNull();
    expect(parseRenewalInfo({ suggestedWindow: { start: 'soon', end: window.end } })).toBeNull();
    expect(parseRenewalInfo({ suggestedWindow: window, explanationURL: 'javascript:alert(1)' })?.explanationUrl).toBe(
      null,
    );
    expect(renewalInfoRecheckMs('60', 5)).toBe(HOUR);
    expect(renewalInfoRecheckMs('604800', 5)).toBe(24 * HOUR);
    expect(renewalInfoRecheckMs('10800', 5)).toBe(3 * HOUR);
    expect(renewalInfoRecheckMs(undefined, 5)).toBe(5);
    expect(renewalInfoRecheckMs('later', 5)).toBe(5);
  });
});
