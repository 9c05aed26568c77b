import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Role } from '../../src/http/context.js';
import { findCredentialByHash } from '../../src/modules/api-keys/queries.js';
import { sha256Hex } from '../../src/lib/tokens.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { backends, createTestDatabase } from '../helpers/database.js';

/**
 * The role policy as written for users (README "Roles"), kept apart from src/http/roles.ts on purpose:
 * a wrong entry there must fail here. Every mutating operation of /api/openapi.json must be listed.
 */
const MINIMUM_ROLE: Record<string, Role> = {
  createClientTenant: 'admin',
  updateTenant: 'admin',
  archiveTenant: 'owner',
  createInvitation: 'admin',
  revokeInvitation: 'admin',
  updateMember: 'admin',
  removeMember: 'admin',
  createApiKey: 'admin',
  revokeApiKey: 'admin',
  logout: 'member',
  startTwoFactorEnrollment: 'member',
  confirmTwoFactorEnrollment: 'member',
  disableTwoFactor: 'member',
  revokeSession: 'member',
  scanPage: 'member',
  createContainer: 'admin',
  updateContainer: 'admin',
  deleteContainer: 'admin',
  startContainer: 'admin',
  stopContainer: 'admin',
  restartContainer: 'admin',
  createDomain: 'admin',
  deleteDomain: 'admin',
  verifyDomain: 'admin',
  createMetaPixel: 'admin',
  updateMetaPixel: 'admin',
  deleteMetaPixel: 'admin',
  createMonitor: 'admin',
  updateMonitor: 'admin',
  deleteMonitor: 'admin',
  pauseMonitor: 'admin',
  resumeMonitor: 'admin',
  acknowledgeIncident: 'member',
  resolveIncident: 'member',
  createTrackingMonitor: 'admin',
  updateTrackingMonitor: 'admin',
  deleteTrackingMonitor: 'admin',
  pauseTrackingMonitor: 'admin',
  resumeTrackingMonitor: 'admin',
  runTrackingMonitor: 'member',
  acceptTrackingBaseline: 'admin',
  createWebhook: 'admin',
  deleteWebhook: 'admin',
  createNotificationChannel: 'admin',
  updateNotificationChannel: 'admin',
  deleteNotificationChannel: 'admin',
  testNotificationChannel: 'admin',
  createReport: 'member',
  createStatusIncident: 'admin',
  addStatusIncidentUpdate: 'admin',
  createMaintenanceWindow: 'admin',
  cancelMaintenanceWindow: 'admin',
};

/** Bodies only an owner may send: plans and limit overrides (billing), and the tenant's two-factor rule. */
const OWNER_ONLY_BODIES: Array<{ operationId: string; body: Record<string, unknown> }> = [
  { operationId: 'createClientTenant', body: { name: 'Client', plan: 'pro' } },
  { operationId: 'updateTenant', body: { plan: 'pro' } },
  { operationId: 'updateTenant', body: { feature_overrides: { max_monitors: 5 } } },
  { operationId: 'updateTenant', body: { require_two_factor: false } },
];

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };
const MUTATING = ['post', 'put', 'patch', 'delete'];
const PASSWORD = 'a long enough password';

interface Operation {
  operationId: string;
  method: string;
  path: string;
  hasBody: boolean;
  minimumRole: unknown;
}

interface Credential {
  name: string;
  role: Role;
  /** Headers (and cookies) that authenticate an unsafe request. */
  auth: { headers: Record<string, string>; cookies?: Record<string, string> };
}

function mutatingOperations(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of MUTATING) {
      const operation = item[method];
      if (!operation || (Array.isArray(operation.security) && operation.security.length === 0)) continue; // public
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        hasBody: !!operation.requestBody,
        minimumRole: operation['x-tagport-minimum-role'],
      });
    }
  }
  return operations;
}

/** Path parameters get a value their schema refuses: the role gate must answer before validation does. */
const urlOf = (operation: Operation) => operation.path.replace(/\{[^}]+\}/g, 'not-an-id');

function expectRoleRefusal(response: LightMyRequestResponse, required: Role, label: string) {
  expect(response.statusCode, `${label}: ${response.body}`).toBe(403);
  expect(response.json().error, label).toMatchObject({
    type: 'permission_error',
    code: 'insufficient_role',
    details: { required_role: required },
  });
  expect(response.json().error.message, label).toContain(required);
  expect(response.json().api_meta.request_id, label).toMatch(/^req_/);
}

/** Passed the role gate: whatever else the request fails on, it is neither a role refusal nor a lost credential. */
function expectPastRoleGate(response: LightMyRequestResponse, label: string) {
  expect(response.statusCode, `${label}: ${response.body}`).not.toBe(403);
  expect(response.statusCode, `${label}: ${response.body}`).toBeLessThan(500);
  if (response.statusCode === 401) expect(response.json().error.code, label).toBe('session_required'); // logout with an API key
}

describe.each(backends)('role policy on %s', (backend) => {
  let t: TestApp;
  let tenantId: string;
  let operations: Operation[];

  async function signIn(email: string, role: Role): Promise<Credential> {
    const response = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
    expect(response.statusCode, response.body).toBe(200);
    const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
    return {
      name: `${role} session`,
      role,
      auth: { headers: { 'x-csrf-token': response.json().csrf_token }, cookies },
    };
  }

  async function keyWithRole(role: Role): Promise<Credential> {
    const key = await t.keys.create(tenantId, { name: `${role} key`, role });
    return { name: `${role} API key`, role, auth: { headers: { authorization: `Bearer ${key.token}` } } };
  }

  /** Owner, admin and member sessions; member and admin keys (the default); an owner key. */
  async function credentials(): Promise<Credential[]> {
    return [
      await signIn('owner@example.com', 'owner'),
      await signIn('admin@example.com', 'admin'),
      await signIn('member@example.com', 'member'),
      await keyWithRole('member'),
      await keyWithRole('admin'),
      await keyWithRole('owner'),
    ];
  }

  function call(operation: Operation, credential: Credential, body: Record<string, unknown> = {}) {
    return t.inject({
      method: operation.method as 'POST',
      url: urlOf(operation),
      headers: credential.auth.headers,
      cookies: credential.auth.cookies,
      ...(operation.hasBody ? { payload: body } : {}),
    });
  }

  let everyone: Credential[];
  beforeAll(async () => {
    t = await startTestApp(backend);
    tenantId = (await t.tenants.create({ name: 'Agency', plan: 'agency' })).id;
    // Status incidents also need a platform operator tenant (403 not_platform_operator otherwise, past the role gate).
    await t.app.services.statusIncidents.grantOperator(tenantId);
    for (const role of ['owner', 'admin', 'member'] as const) {
      await t.users.createUser({
        email: `${role}@example.com`,
        name: `${role} user`,
        password: PASSWORD,
        tenantId,
        role,
      });
    }
    const response = await t.inject({ method: 'GET', url: '/api/openapi.json' });
    operations = mutatingOperations(response.json());
    everyone = await credentials();
  });
  afterAll(() => t?.close());

  it('lists every mutating operation of the OpenAPI document, and documents its minimum role', () => {
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(Object.keys(MINIMUM_ROLE).sort());
    for (const operation of operations)
      expect(operation.minimumRole, operation.operationId).toBe(MINIMUM_ROLE[operation.operationId]);
  });

  it.each(Object.entries(MINIMUM_ROLE))(
    '%s needs the %s role, for sessions and API keys alike',
    async (operationId, minimum) => {
      const operation = operations.find((candidate) => candidate.operationId === operationId)!;
      expect(operation, operationId).toBeDefined();
      // Signing out ends the session it is called with: give that operation sessions of its own.
      const callers = operationId === 'logout' ? await credentials() : everyone;
      for (const credential of callers) {
        const response = await call(operation, credential);
        const label = `${operationId} as ${credential.name}`;
        if (RANK[credential.role] < RANK[minimum]) expectRoleRefusal(response, minimum, label);
        else expectPastRoleGate(response, label);
      }
    },
  );

  it.each(OWNER_ONLY_BODIES)('$operationId with $body needs the owner role', async ({ operationId, body }) => {
    const operation = operations.find((candidate) => candidate.operationId === operationId)!;
    for (const credential of everyone) {
      const response = await call(operation, credential, body);
      const label = `${operationId} as ${credential.name}`;
      if (credential.role === 'owner') expectPastRoleGate(response, label);
      else expectRoleRefusal(response, credential.role === 'member' ? 'admin' : 'owner', label);
    }
  });

  it('documents the policy in the OpenAPI document: extension, description and the 403', async () => {
    const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const createContainer = document.paths['/api/containers/'].post;
    expect(createContainer['x-tagport-minimum-role']).toBe('admin');
    expect(createContainer.description).toContain('**Minimum role:** `admin`');
    expect(createContainer.responses['403'].description).toContain('insufficient_role');
    const updateTenant = document.paths['/api/tenants/{id}/'].patch;
    expect(updateTenant['x-tagport-owner-only-fields']).toEqual(['plan', 'feature_overrides', 'require_two_factor']);
    expect(document.paths['/api/containers/'].get['x-tagport-minimum-role']).toBe('member');
    expect(document.info.description).toContain('insufficient_role');
  });

  it('refuses a member before reading the body: a malformed body still answers 403', async () => {
    const member = everyone.find((credential) => credential.name === 'member session')!;
    const headers = { ...member.auth.headers, 'content-type': 'application/json' };
    const response = await t.inject({
      method: 'POST',
      url: '/api/webhooks/',
      headers,
      cookies: member.auth.cookies,
      payload: '{not json',
    });
    expectRoleRefusal(response, 'admin', 'createWebhook with a malformed body');
  });

  describe('API key roles', () => {
    const create = (credential: Credential, body: Record<string, unknown>) =>
      t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        headers: credential.auth.headers,
        cookies: credential.auth.cookies,
        payload: body,
      });
    const as = (name: string) => everyone.find((credential) => credential.name === name)!;

    it('creates admin keys by default and shows the role on the key', async () => {
      const created = await create(as('admin session'), { name: 'CI' });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().role).toBe('admin');
      const listed = await t.inject({
        method: 'GET',
        url: '/api/api-keys/',
        headers: as('member session').auth.headers,
        cookies: as('member session').auth.cookies,
      });
      expect(listed.json().results.find((key: { id: string }) => key.id === created.json().id).role).toBe('admin');
    });

    it('lets a member key read but not change anything', async () => {
      const created = await create(as('admin API key'), { name: 'wallboard', role: 'member' });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().role).toBe('member');
      const headers = { authorization: `Bearer ${created.json().token}` };
      expect((await t.inject({ method: 'GET', url: '/api/containers/', headers })).statusCode).toBe(200);
      const denied = await t.inject({
        method: 'POST',
        url: '/api/webhooks/',
        headers,
        payload: { url: 'https://example.com/hook', events: ['container.started'] },
      });
      expectRoleRefusal(denied, 'admin', 'createWebhook with a member key');
    });

    it("refuses a key with a role above the creator's own", async () => {
      for (const creator of ['admin session', 'admin API key']) {
        const denied = await create(as(creator), { name: 'escalate', role: 'owner' });
        expectRoleRefusal(denied, 'owner', `owner key by ${creator}`);
      }
      const allowed = await create(as('owner session'), { name: 'owner automation', role: 'owner' });
      expect(allowed.statusCode, allowed.body).toBe(201);
      expect(allowed.json().role).toBe('owner');
    });

    it("refuses to revoke a key with a role above the caller's own", async () => {
      const ownerKey = await t.keys.create(tenantId, { name: 'owner automation', role: 'owner' });
      const revoke = (credential: Credential) =>
        t.inject({
          method: 'DELETE',
          url: `/api/api-keys/${ownerKey.id}/`,
          headers: credential.auth.headers,
          cookies: credential.auth.cookies,
        });
      expectRoleRefusal(await revoke(as('admin session')), 'owner', 'revoke an owner key as admin');
      const revoked = await revoke(as('owner session'));
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.json().status).toBe('revoked');
    });

    it('gives keys that existed before roles the admin role (migration default)', async () => {
      const hash = sha256Hex('tgp_legacy');
      await t.database.db.execute(
        sql`insert into api_keys (id, tenant_id, name, token_hash, token_start, token_last4) values ('key_legacy', ${tenantId}, 'legacy', ${hash}, 'tgp_', 'acy0')`,
      );
      expect((await findCredentialByHash(t.database.db, hash))?.role).toBe('admin');
    });
  });
});

describe('a mutating route missing from the policy', () => {
  it('needs admin, and the OpenAPI document says so', async () => {
    const testDatabase = await createTestDatabase('pglite');
    const app = await buildApp({ config: testConfig(), database: testDatabase.database });
    try {
      app.post(
        '/api/unlisted/',
        { schema: { operationId: 'unlistedOperation', summary: 'Not in the policy', tags: ['System'] } },
        async () => ({ done: true }),
      );
      await app.ready();
      const tenant = await app.services.tenants.create({ name: 'T', plan: 'pro' });
      const member = await app.services.apiKeys.create(tenant.id, { name: 'm', role: 'member' });
      const admin = await app.services.apiKeys.create(tenant.id, { name: 'a' });
      const denied = await app.inject({
        method: 'POST',
        url: '/api/unlisted/',
        headers: { authorization: `Bearer ${member.token}` },
      });
      expectRoleRefusal(denied, 'admin', 'unlisted route as member');
      const allowed = await app.inject({
        method: 'POST',
        url: '/api/unlisted/',
        headers: { authorization: `Bearer ${admin.token}` },
      });
      expect(allowed.statusCode).toBe(200);
      const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      expect(document.paths['/api/unlisted/'].post['x-tagport-minimum-role']).toBe('admin');
    } finally {
      await app.close();
      await testDatabase.drop();
    }
  });
});
