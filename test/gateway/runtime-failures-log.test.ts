import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CONFIG, testGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../helpers/google-fixture.js';

const FAILED_FOR_GOOD = 'Forwards failed for good';

/** The log lines (pino's JSON) whose message starts with `prefix`. */
function linesStartingWith(lines: string[], prefix: string): Array<Record<string, any>> {
  return lines
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((entry) => typeof entry.msg === 'string' && entry.msg.startsWith(prefix));
}

describe('a forward the vendor refuses for good is logged, never silently dropped', () => {
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let google: GoogleFixture;
  let gatewayUrl: string;
  let container: { id: string; default_hostname: string };
  const lines: string[] = [];

  beforeAll(async () => {
    google = await startGoogleFixture();
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({
        logLevel: 'warn',
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        gateway: testGateway(),
        runtime: testRuntime(google.origin),
      }),
      database: testDatabase.database,
      logStream: { write: (line) => lines.push(line) },
    });
    await app.ready();
    const tenant = await app.services.tenants.create({ name: 'Refused forwards', plan: 'business' });
    const token = (await app.services.apiKeys.create(tenant.id, { name: 'k', role: 'owner' })).token;
    const created = await app.inject({
      method: 'POST',
      url: '/api/containers/',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        name: 'Builtin',
        region: 'eu-central',
        config: CONFIG,
        settings: { ga4_measurement_ids: ['G-REFUSE1'] },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    container = created.json();
    await app.services.containerWorker.idle();
    gatewayUrl = await app.services.gateway.listen(0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
    await google?.close();
  });

  it('writes one warn line per flush with the vendor, container, reason and count of the refused forwards', async () => {
    // GA4 refuses two hits with 400 (no retry for a 4xx) and takes the third.
    google.state.collectStatuses.push(400, 400);
    for (const event of ['refused_one', 'refused_two', 'page_view']) {
      const response = await request(`${gatewayUrl}/g/collect?v=2&tid=G-REFUSE1&cid=1.2&en=${event}`, {
        headers: { host: container.default_hostname },
      });
      await response.body.dump();
      expect(response.statusCode).toBe(204);
    }
    await app.services.runtime.idle();
    expect(google.hits.map((hit) => hit.params.get('en'))).toEqual(['refused_one', 'refused_two', 'page_view']);
    expect(linesStartingWith(lines, FAILED_FOR_GOOD)).toEqual([]);

    await app.services.runtime.flush();
    const logged = linesStartingWith(lines, FAILED_FOR_GOOD);
    expect(logged).toHaveLength(1);
    expect(logged[0].level).toBe(40);
    expect(logged[0].failures).toEqual([
      { vendor: 'ga4', containerId: container.id, reason: expect.stringContaining('400'), count: 2 },
    ]);

    // Reported once: the next flush has nothing new to say.
    await app.services.runtime.flush();
    expect(linesStartingWith(lines, FAILED_FOR_GOOD)).toHaveLength(1);
  });
});
