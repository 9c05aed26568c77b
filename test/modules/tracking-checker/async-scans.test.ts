import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner } from '../../../src/scanner/index.js';
import { startFixtureServer, type FixtureServer } from '../../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { waitFor } from '../../helpers/processes.js';

const SCAN = '/api/v1/tracking-checker/scan/';

describe('asynchronous scans (real scanner and webhooks, fixture sites on loopback)', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let receiver: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let tenant: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    fixture = await startFixtureServer();
    receiver = await startHttpsTarget(() => ({ status: 204 }));
    scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 1, scanTimeoutMs: 30_000 }));
    t = await startTestApp('pglite', { allowPrivateNetworks: true, outboundCaCertificates: [receiver.ca] }, undefined, {
      scanner,
    });
    tenant = await t.tenantWithKey('agency');
    const hook = await t.inject({
      method: 'POST',
      url: '/api/webhooks/',
      token: tenant.token,
      payload: {
        url: receiver.url('/scans'),
        event_types: ['tracking_checker.scan.completed', 'tracking_checker.scan.failed'],
      },
    });
    expect(hook.statusCode, hook.body).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await scanner?.close();
    await fixture?.close();
    await receiver?.close();
  });

  const events = () => receiver.received.map((request) => JSON.parse(request.body));

  describe('scanPage · POST /api/v1/tracking-checker/scan/', () => {
    it('answers 202 with Location at once under Prefer: respond-async; the scan resource goes queued → completed and a webhook announces it', async () => {
      const response = await t.inject({
        method: 'POST',
        url: SCAN,
        token: tenant.token,
        headers: { prefer: 'respond-async, wait=5' },
        payload: { url: fixture.url('shop.example.test', '/') },
      });
      expect(response.statusCode, response.body).toBe(202);
      const accepted = response.json();
      expect(accepted).toMatchObject({ scan_id: expect.stringMatching(/^scn_/), completed_at: null });
      expect(['queued', 'running']).toContain(accepted.status);
      expect(response.headers.location).toBe(`/api/v1/tracking-checker/scans/${accepted.scan_id}/`);
      expect(response.headers['preference-applied']).toBe('respond-async');
      // The quota slot is taken at enqueue, as for a synchronous scan.
      expect(response.headers.ratelimit).toMatch(/"scan-hourly";r=299;/);

      const resource = () => t.inject({ method: 'GET', url: response.headers.location as string, token: tenant.token });
      await waitFor(async () => (await resource()).json().status === 'completed', 90_000, 'the scan to complete');
      const done = (await resource()).json();
      expect(done).toMatchObject({ scan_id: accepted.scan_id, status: 'completed', started_at: expect.any(String) });
      expect(done.trackers.map((tracker: { name: string }) => tracker.name)).toContain('Google Tag Manager');

      await waitFor(
        async () => events().some((event) => event.data.scan_id === accepted.scan_id),
        30_000,
        'the scan.completed webhook',
      );
      expect(events().find((event) => event.data.scan_id === accepted.scan_id)).toMatchObject({
        type: 'tracking_checker.scan.completed',
        data: { scan_id: accepted.scan_id, trackers: done.trackers.length },
      });
    }, 150_000);

    it('keeps the synchronous contract without the preference: the request waits for the worker and answers 200 with the result', async () => {
      const response = await t.inject({
        method: 'POST',
        url: SCAN,
        token: tenant.token,
        payload: { url: fixture.url('shop.example.test', '/') },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ scan_id: expect.stringMatching(/^scn_/) });
      expect(response.json().status).toBeUndefined();
    }, 150_000);
  });

  describe('getPlatformStatus · GET /api/status.json', () => {
    it('shows the scan queue: jobs waiting and the wait of the oldest', async () => {
      const document = (await t.inject({ method: 'GET', url: '/api/status.json' })).json();
      expect(document.queues).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            name: 'scans',
            waiting: expect.any(Number),
            oldest_wait_seconds: expect.any(Number),
          }),
        ]),
      );
    });
  });
});
