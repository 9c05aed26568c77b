import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { Scanner } from '../../../src/scanner/index.js';
import { startFixtureServer, type FixtureServer } from '../../fixtures/scanner/server.js';
import { testConfig } from '../../helpers/app.js';
import { recordOperationHits } from '../../helpers/operation-hits.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/processes.js';

const SCAN = '/api/v1/tracking-checker/scan/';
const CHROMIUM = '/nonexistent/tagport-test/chromium';

/** Failures of ours (a browser that cannot start) are logged with the request id; the client gets plain words. */
describe('scan failures of our own: plain message to the client, detail in the log', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let token: string;
  const lines: string[] = [];

  beforeAll(async () => {
    fixture = await startFixtureServer();
    scanner = new Scanner(fixture.scannerOptions({ chromiumPath: CHROMIUM, scanTimeoutMs: 10_000 }));
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({ logLevel: 'info', runWorkers: false }),
      database: testDatabase.database,
      scanner,
      logStream: { write: (line) => lines.push(line) },
    });
    recordOperationHits(app);
    await app.ready();
    const tenant = await app.services.tenants.create({ name: 'Scanner errors', plan: 'agency', parentId: null });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'errors' })).token;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
    await scanner?.close();
    await fixture?.close();
  });

  const logOf = (requestId: string) => lines.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line));
  const leaks = /nonexistent|browserType|executable/i;

  /** A scan with a broken browser still answers a result; its warning does not quote the launcher. */
  async function expectBrowserFailureWarning(url: string, authenticated: boolean) {
    const response = await app.inject({
      method: 'POST',
      url,
      headers: authenticated ? { authorization: `Bearer ${token}` } : {},
      payload: { url: fixture.url('shop.example.test', '/') },
    });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json();
    expect(result.warnings.map((warning: { code: string }) => warning.code)).toEqual(['browser_failed']);
    expect(result.warnings[0].message).toContain('the browser could not be started');
    expect(response.body).not.toMatch(leaks);

    const failure = logOf(result.api_meta.request_id).find((line) => line.msg === 'scan stage failed');
    expect(failure.err).toMatchObject({
      type: 'BrowserUnavailableError',
      cause: { message: expect.stringContaining(CHROMIUM) },
    });
  }

  describe('scanPage · POST /api/v1/tracking-checker/scan/', () => {
    it('with a broken browser answers a result whose warning does not quote the launcher', async () => {
      await expectBrowserFailureWarning(SCAN, true);
    });

    it('an unreachable page with a broken browser answers 422 target_unreachable with a plain message, also when read back', async () => {
      const target = new URL(fixture.url('shop.example.test', '/'));
      target.port = String(await freePort()); // nothing listens there
      const response = await app.inject({
        method: 'POST',
        url: SCAN,
        headers: { authorization: `Bearer ${token}` },
        payload: { url: target.href },
      });
      expect(response.statusCode, response.body).toBe(422);
      const body = response.json();
      // A page never reached gives its slot back: a second try leaves as many scans as the first.
      const remaining = (headers: typeof response.headers) =>
        /"scan-hourly";r=(\d+)/.exec(String(headers.ratelimit))?.[1];
      const again = await app.inject({
        method: 'POST',
        url: SCAN,
        headers: { authorization: `Bearer ${token}` },
        payload: { url: target.href },
      });
      expect(again.statusCode).toBe(422);
      expect(remaining(again.headers)).toBeDefined();
      expect(remaining(again.headers)).toBe(remaining(response.headers));
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'target_unreachable', param: 'url' });
      expect(body.error.message).toContain('browser: the browser could not be started');
      expect(response.body).not.toMatch(leaks);

      // The worker that ran the scan logs what failed on our side, with the id of the request that waited for it.
      expect(logOf(body.api_meta.request_id).find((line) => line.msg === 'scan stage failed')).toMatchObject({
        err: { type: 'BrowserUnavailableError', cause: { message: expect.stringContaining(CHROMIUM) } },
      });

      const listed = await app.inject({
        method: 'GET',
        url: '/api/v1/tracking-checker/scans/',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(
        listed.json().results.find((scan: { scan_id: string }) => scan.scan_id === body.error.details.scan_id).status,
      ).toBe('failed');
      expect(listed.body).not.toMatch(leaks);
    });
  });

  describe('publicScanPage · POST /api/public/tracking-checker/scan/', () => {
    it('with a broken browser answers a result whose warning does not quote the launcher', async () => {
      await expectBrowserFailureWarning('/api/public/tracking-checker/scan/', false);
    });
  });
});
