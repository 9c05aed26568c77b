import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidents, scans, webhooks } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { type Operation, listOperations } from '../helpers/operations.js';
import { freePort } from '../helpers/processes.js';

/**
 * Access checks generated from /api/openapi.json, so an operation added later is covered without a new test:
 * every operation that needs credentials answers 401 without them, and every operation on one object answers 404
 * to another tenant and changes nothing. These calls do not count for the operation-coverage check.
 */
const objectPaths: Record<string, { create: (fixtures: Fixtures) => Promise<string>; read: string }> = {
  tenants: { create: (f) => f.clientTenant(), read: '/api/tenants/{id}/' },
  'api-keys': { create: (f) => f.apiKey(), read: '/api/api-keys/' },
  scans: { create: (f) => f.scan(), read: '/api/v1/tracking-checker/scans/' },
  monitors: { create: (f) => f.monitor(), read: '/api/monitors/{id}/' },
  'tracking-monitors': { create: (f) => f.trackingMonitor(), read: '/api/tracking-monitors/{id}/' },
  incidents: { create: (f) => f.incident(), read: '/api/incidents/' },
  webhooks: { create: (f) => f.webhook(), read: '/api/webhooks/{id}/' },
  'notification-channels': { create: (f) => f.notificationChannel(), read: '/api/notification-channels/{id}/' },
  reports: { create: (f) => f.report(), read: '/api/reports/{id}/' },
  containers: { create: (f) => f.container(), read: '/api/containers/{id}/' },
  domains: { create: (f) => f.domain(), read: '/api/domains/{id}/' },
  members: { create: (f) => f.member(), read: '/api/members/' },
  invitations: { create: (f) => f.invitation(), read: '/api/invitations/' },
  events: { create: (f) => f.event(), read: '/api/events/{id}/' },
};

/** Valid bodies, so the other tenant's call reaches the lookup instead of failing validation. */
const bodies: Record<string, object> = {
  updateTenant: { name: 'Renamed by another tenant' },
  updateMonitor: { name: 'Renamed by another tenant' },
  updateTrackingMonitor: { name: 'Renamed by another tenant' },
  acceptTrackingBaseline: {},
  updateNotificationChannel: { name: 'Renamed by another tenant' },
  updateContainer: { name: 'Renamed by another tenant' },
  updateMember: { role: 'admin' },
  createMetaPixel: { pixel_id: '1234567890', access_token: 'EAAB-another-tenants-token' },
  updateMetaPixel: { test_event_code: 'TEST-another-tenant' },
};

/** Well-formed ids for the other parameters of a path under an object (they name nothing of the stranger's). */
const innerIds: Record<string, () => string> = {
  pixel: () => newId('metaPixel'),
  run_id: () => newId('trackingRun'),
};

const pathFor = (operation: Operation, id: string) =>
  operation.path.replace('{id}', id).replace(/\{(\w+)\}/g, (_all, name: string) => innerIds[name]?.() ?? name);

interface Fixtures {
  clientTenant(): Promise<string>;
  apiKey(): Promise<string>;
  scan(): Promise<string>;
  monitor(): Promise<string>;
  trackingMonitor(): Promise<string>;
  incident(): Promise<string>;
  webhook(): Promise<string>;
  notificationChannel(): Promise<string>;
  report(): Promise<string>;
  container(): Promise<string>;
  domain(): Promise<string>;
  member(): Promise<string>;
  invitation(): Promise<string>;
  event(): Promise<string>;
}

/**
 * Objects of the platform, not of a tenant (status incidents and maintenance): a stranger is refused with 403
 * not_platform_operator rather than 404, tested in test/modules/status/status-page.test.ts.
 */
const PLATFORM_OBJECTS = /^\/api\/status\//;

/** The collection segment just before `{id}`: `/api/containers/{id}/stop/` → `containers`. */
function objectKind(operation: Operation): string | null {
  if (PLATFORM_OBJECTS.test(operation.path)) return null;
  return /\/([a-z-]+)\/\{id\}/.exec(operation.path)?.[1] ?? null;
}

const owner = { tenantId: '', token: '' };
let fixtureCount = 0;

function fixtures(t: TestApp): Fixtures {
  const api = async (url: string, payload: object) => {
    const response = await t.inject({ method: 'POST', url, token: owner.token, payload });
    expect(response.statusCode, `POST ${url}: ${response.body}`).toBeLessThan(300);
    return response.json() as { id: string };
  };
  const self: Fixtures = {
    clientTenant: async () => (await api('/api/tenants/', { name: `Client ${++fixtureCount}`, plan: 'pro' })).id,
    apiKey: async () => (await api('/api/api-keys/', { name: `Spare key ${++fixtureCount}` })).id,
    container: async () =>
      (
        await api('/api/containers/', {
          name: `Container ${++fixtureCount}`,
          region: 'eu-central',
          config: Buffer.from('id=GTM-ACCESS1&env=1&auth=abcdefgh').toString('base64'),
        })
      ).id,
    monitor: async () =>
      (
        await api('/api/monitors/', {
          name: `Monitor ${++fixtureCount}`,
          target: { type: 'container', container_id: await self.container() },
        })
      ).id,
    trackingMonitor: async () =>
      (await api('/api/tracking-monitors/', { name: `Pages ${++fixtureCount}`, pages: ['https://shop.access.test/'] }))
        .id,
    domain: async () =>
      (
        await api('/api/domains/', {
          hostname: `shop${++fixtureCount}.access.test`,
          container_id: await self.container(),
        })
      ).id,
    invitation: async () =>
      (await api('/api/invitations/', { email: `invitee${++fixtureCount}@access.test`, role: 'member' })).id,
    // Creating a container records its first event.
    event: async () => {
      const container = await self.container();
      const listed = await t.inject({ method: 'GET', url: `/api/events/?object_id=${container}`, token: owner.token });
      return listed.json().results[0].id;
    },
    member: async () => {
      const email = `member${++fixtureCount}@access.test`;
      await t.users.createUser({
        email,
        name: 'Member',
        password: 'a long enough password',
        tenantId: owner.tenantId,
        role: 'member',
      });
      const listed = await t.inject({ method: 'GET', url: '/api/members/?page_size=100', token: owner.token });
      return listed.json().results.find((member: { email: string }) => member.email === email).id;
    },
    report: async () =>
      (
        await api('/api/reports/', {
          kind: 'uptime',
          period_start: '2026-01-01T00:00:00Z',
          period_end: '2026-02-01T00:00:00Z',
          format: 'json',
        })
      ).id,
    notificationChannel: async () =>
      (
        await api('/api/notification-channels/', {
          name: `Channel ${++fixtureCount}`,
          type: 'email',
          target: `oncall${fixtureCount}@access.test`,
        })
      ).id,
    // Rows written directly: a webhook URL must resolve publicly, a scan would need the scanner, an incident a failure.
    webhook: async () => {
      const id = newId('webhook');
      await t.database.db.insert(webhooks).values({
        id,
        tenantId: owner.tenantId,
        url: 'https://hooks.access.invalid/tagport',
        eventTypes: ['monitor.down'],
        secret: 'whsec_access',
      });
      return id;
    },
    scan: async () => {
      const id = newId('scan');
      await t.database.db.insert(scans).values({
        id,
        tenantId: owner.tenantId,
        url: 'https://shop.access.test/',
        language: 'en',
        options: { ai_summary: false, pagespeed: false },
        status: 'failed',
        error: { code: 'target_unreachable', message: 'The page could not be reached.' },
        completedAt: new Date(),
      });
      return id;
    },
    incident: async () => {
      const id = newId('incident');
      const monitorId = await self.monitor();
      await t.database.db
        .insert(incidents)
        .values({ id, tenantId: owner.tenantId, monitorId, status: 'open', cause: 'test' });
      return id;
    },
  };
  return self;
}

/** The operations, read once from a throw-away app so that each one gets its own describe. */
async function documentedOperations(): Promise<Operation[]> {
  const t = await startTestApp('pglite', {}, undefined, { recordOperations: false });
  try {
    return listOperations((await t.inject({ method: 'GET', url: '/api/openapi.json' })).json());
  } finally {
    await t.close();
  }
}

const operations = await documentedOperations();

describe('the generated access tests', () => {
  it('cover every operation, each with a unique operationId, and have a fixture for every object kind', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    const kinds = operations
      .filter((operation) => !operation.sessionOnly)
      .map(objectKind)
      .filter((kind): kind is string => kind !== null);
    expect(kinds.filter((kind) => !objectPaths[kind])).toEqual([]);
  });
});

describe.each(backends)('every documented operation on %s', (backend) => {
  let t: TestApp;
  let stranger: { token: string };
  let make: Fixtures;

  beforeAll(async () => {
    t = await startTestApp(
      backend,
      {
        rateLimitPerMinute: 1_000_000,
        anonymousRateLimitPerMinute: 1_000_000,
        runWorkers: false,
        allowPrivateNetworks: false,
        dns: { resolvers: [`127.0.0.1:${await freePort()}`], timeoutMs: 200, recheckIntervalMs: 600_000 },
      },
      undefined,
      { recordOperations: false },
    );
    Object.assign(owner, await t.tenantWithKey('agency'));
    stranger = await t.tenantWithKey('agency');
    make = fixtures(t);
  }, 60_000);
  afterAll(() => t?.close());

  /** The object as its owner sees it, without the per-request envelope. */
  async function readAsOwner(kind: string, id: string): Promise<unknown> {
    const read = objectPaths[kind]!.read;
    const response = await t.inject({ method: 'GET', url: read.replace('{id}', id), token: owner.token });
    expect(response.statusCode, `${read} as the owner`).toBe(200);
    const { api_meta: _meta, ...body } = response.json();
    if (read.includes('{id}')) return body;
    const listed = body.results.find((item: { id?: string; scan_id?: string }) => (item.id ?? item.scan_id) === id);
    expect(listed, `${id} in ${read}`).toBeDefined();
    return listed;
  }

  // Public operations need no credentials and own no object: nothing to check for them here.
  describe.each(
    operations
      .filter((operation) => !operation.public)
      .map((operation) => [`${operation.operationId} · ${operation.method} ${operation.route}`, operation] as const),
  )('%s', (_name, operation) => {
    const kind = objectKind(operation);

    it('answers 401 missing_credentials in the error envelope without credentials', async () => {
      const response = await t.inject({
        method: operation.method as 'GET',
        url: operation.path.replace('{id}', 'obj_missing'),
        payload: bodies[operation.operationId],
      });
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json()).toMatchObject({
        error: { type: 'authentication_error', code: 'missing_credentials' },
        api_meta: { request_id: response.headers['x-request-id'] },
      });
    });

    // A session-only operation (the person's own sessions) is refused to an API key before any lookup;
    // another user's session is a 404 there, tested with sessions in test/modules/security/.
    if (kind !== null && !operation.sessionOnly)
      it("answers 404 for another tenant's object and changes nothing", async () => {
        const id = await objectPaths[kind!]!.create(make);
        const before = await readAsOwner(kind!, id);
        const response = await t.inject({
          method: operation.method as 'GET',
          url: pathFor(operation, id),
          token: stranger.token,
          payload: bodies[operation.operationId],
        });
        expect(response.statusCode, response.body).toBe(404);
        expect(response.json().error).toMatchObject({ type: 'not_found_error' });
        expect(await readAsOwner(kind!, id)).toEqual(before);
      });
  });
});
