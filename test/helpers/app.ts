import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import type { Deprecation } from '../../src/http/deprecations.js';
import type { ApiKeyService } from '../../src/modules/api-keys/service.js';
import type { UserService } from '../../src/modules/auth/service.js';
import type { TenantService } from '../../src/modules/tenants/service.js';
import type { Scanner } from '../../src/scanner/index.js';
import { recordOperationHits } from './operation-hits.js';
import { createTestDatabase, type Backend, type TestDatabase } from './database.js';

export function testConfig(overrides: Partial<Config> = {}): Config {
  // The gateway role is left out: tests listen with the gateway themselves when they need it.
  return loadConfig(
    { LOG_LEVEL: 'silent', JOB_POLL_MS: '500', TAGPORT_ROLES: 'api,worker' },
    { runMigrations: false, ...overrides },
  );
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  testDatabase: TestDatabase;
  tenants: TenantService;
  keys: ApiKeyService;
  users: UserService;
  /** Creates a tenant and an owner key for it (every operation allowed) through the real services. */
  tenantWithKey(plan?: string, parentId?: string | null): Promise<{ tenantId: string; token: string; keyId: string }>;
  inject(options: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startTestApp(
  backend: Backend,
  overrides: Partial<Config> = {},
  existing?: TestDatabase,
  extras: {
    scanner?: Scanner /** false for tests generated from the document, so they do not count as calls */;
    recordOperations?: boolean;
    /** A deprecation registry in place of the one in force. */
    deprecations?: readonly Deprecation[];
  } = {},
): Promise<TestApp> {
  const testDatabase = existing ?? (await createTestDatabase(backend));
  const config = testConfig(overrides);
  const app = await buildApp({
    config,
    database: testDatabase.database,
    scanner: extras.scanner,
    ...(extras.deprecations ? { deprecations: extras.deprecations } : {}),
  });
  if (extras.recordOperations !== false) recordOperationHits(app);
  await app.ready();
  const { tenants, apiKeys: keys, users } = app.services;
  let counter = 0;
  return {
    app,
    database: testDatabase.database,
    testDatabase,
    tenants,
    keys,
    users,
    async tenantWithKey(plan = 'pro', parentId = null) {
      const tenant = await tenants.create({ name: `Tenant ${++counter}`, plan, parentId });
      const key = await keys.create(tenant.id, { name: 'test key', role: 'owner' });
      return { tenantId: tenant.id, token: key.token, keyId: key.id };
    },
    inject({ token, ...options }) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (token) headers.authorization = `Bearer ${token}`;
      return app.inject({ ...options, headers });
    },
    async close() {
      await app.close();
      if (!existing) await testDatabase.drop();
    },
  };
}
