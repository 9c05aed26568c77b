import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { deprecatedCalls } from '../../src/db/schema.js';
import { checkDeprecations, type Deprecation, DEPRECATIONS } from '../../src/http/deprecations.js';
import { testConfig } from '../helpers/app.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';

const listWebhooksGone: Deprecation = {
  operationId: 'listWebhooks',
  announced: '2026-11-23',
  sunset: '2027-01-22',
  replacement: '`GET /api/v2/webhooks/`',
  changelog: '/changelog#deprecated',
};
const upstreamField: Deprecation = {
  operationId: 'createContainer',
  field: 'upstream_url',
  announced: '2026-11-23',
  sunset: '2027-02-01',
  replacement: '`upstreams`',
  changelog: '/changelog#deprecated',
};

describe('deprecations (spec §9: announced at least 60 days ahead)', () => {
  it('refuses a sunset less than 60 days after the announcement, and the registry in force keeps the promise', () => {
    expect(() => checkDeprecations([{ ...listWebhooksGone, sunset: '2027-01-21' }])).toThrow(/59 days/);
    expect(() => checkDeprecations([{ ...listWebhooksGone, sunset: '2027-1-22' }])).toThrow(/YYYY-MM-DD/);
    expect(() => checkDeprecations([{ ...listWebhooksGone, replacement: '' }])).toThrow(/replacement/);
    expect(() => checkDeprecations([listWebhooksGone, upstreamField])).not.toThrow();
    expect(() => checkDeprecations(DEPRECATIONS)).not.toThrow();
  });

  describe.each(backends)('an app with deprecations on %s', (backend) => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let document: any;
    let token: string;
    beforeAll(async () => {
      database = await createTestDatabase(backend);
      app = await buildApp({
        config: testConfig(),
        database: database.database,
        deprecations: [listWebhooksGone, upstreamField],
      });
      await app.ready();
      document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      const tenant = await app.services.tenants.create({ name: 'Deprecations', plan: 'pro', parentId: null });
      token = (await app.services.apiKeys.create(tenant.id, { name: 'test', role: 'owner' })).token;
    });
    afterAll(async () => {
      await app?.close();
      await database?.drop();
    });

    it('marks the operation and the field deprecated in the OpenAPI document, with the headers they send', () => {
      const operation = document.paths['/api/webhooks/'].get;
      expect(operation.deprecated).toBe(true);
      expect(operation.description).toMatch(
        /^\*\*Deprecated\*\* since 2026-11-23; it may stop working from 2027-01-22/,
      );
      expect(Object.keys(operation.responses['200'].headers)).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
      expect(document.components.headers.Sunset).toBeDefined();
      const body = document.paths['/api/containers/'].post.requestBody.content['application/json'].schema;
      expect(body.properties.upstream_url.deprecated).toBe(true);
      expect(document.paths['/api/containers/'].post.deprecated).toBeUndefined();
    });

    it('sends Deprecation, Sunset and Link on every response of a deprecated operation, and only there', async () => {
      const headers = { authorization: `Bearer ${token}` };
      for (const response of [
        await app.inject({ method: 'GET', url: '/api/webhooks/', headers }),
        await app.inject({ method: 'GET', url: '/api/webhooks/?page=0', headers }),
      ]) {
        expect(response.headers.deprecation).toBe(`@${Date.parse('2026-11-23T00:00:00Z') / 1000}`);
        expect(response.headers.sunset).toBe('Fri, 22 Jan 2027 00:00:00 GMT');
        expect(response.headers.link).toContain('</changelog#deprecated>; rel="deprecation"');
      }
      const other = await app.inject({ method: 'GET', url: '/api/containers/', headers });
      expect(other.headers.deprecation).toBeUndefined();
    });

    it('counts the calls of a deprecated operation per key in memory, adds them per key and day on flush, and lists them with the key', async () => {
      const tenant = await app.services.tenants.create({ name: 'Callers', plan: 'pro', parentId: null });
      const caller = await app.services.apiKeys.create(tenant.id, { name: 'caller', role: 'owner' });
      const quiet = await app.services.apiKeys.create(tenant.id, { name: 'quiet', role: 'owner' });
      const as = (key: { token: string }) => ({ authorization: `Bearer ${key.token}` });
      const stored = async () =>
        (await database.database.db.select().from(deprecatedCalls)).filter((row) => row.tenantId === tenant.id);
      const longAgo = new Date(Date.now() - 40 * 86_400_000);
      await database.database.db.insert(deprecatedCalls).values({
        apiKeyId: caller.id,
        tenantId: tenant.id,
        day: longAgo.toISOString().slice(0, 10),
        operationId: 'listWebhooks',
        sunset: '2027-01-22',
        changelog: '/changelog#deprecated',
        calls: 50,
        lastCalledAt: longAgo,
      });

      for (let call = 0; call < 3; call++)
        await app.inject({ method: 'GET', url: '/api/webhooks/', headers: as(caller) });
      await app.inject({ method: 'GET', url: '/api/containers/', headers: as(quiet) });
      expect((await stored()).map((row) => row.calls)).toEqual([50]); // counted in memory only, so far
      await app.services.deprecatedCalls.flush();
      await app.inject({ method: 'GET', url: '/api/webhooks/', headers: as(caller) });
      await app.services.deprecatedCalls.flush();
      // One row per key, day and operation; the days past the 30-day window are gone.
      expect(await stored()).toEqual([
        expect.objectContaining({ apiKeyId: caller.id, operationId: 'listWebhooks', calls: 4 }),
      ]);

      const keys = (await app.inject({ method: 'GET', url: '/api/api-keys/', headers: as(caller) })).json().results;
      const byName = Object.fromEntries(keys.map((key: { name: string }) => [key.name, key]));
      expect(byName.caller.deprecated_calls).toEqual([
        {
          operation_id: 'listWebhooks',
          calls: 4,
          last_called_at: expect.any(String),
          sunset: '2027-01-22',
          changelog: '/changelog#deprecated',
        },
      ]);
      expect(byName.quiet.deprecated_calls).toEqual([]);
    });
  });
});
