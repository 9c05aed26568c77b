import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import { AuthService } from './http/auth.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { UserService } from './modules/auth/service.js';
import { TenantService } from './modules/tenants/service.js';

/** The domain services of one instance, shared by the HTTP routes and the CLI. */
export interface Services {
  invalidations: InvalidationBus;
  auth: AuthService;
  tenants: TenantService;
  apiKeys: ApiKeyService;
  users: UserService;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createServices(database: Database, config: Config): Services {
  const invalidations = new InvalidationBus(database);
  const auth = new AuthService(database, config, invalidations);
  return {
    invalidations,
    auth,
    tenants: new TenantService(database, invalidations, config.authCacheTtlMs),
    apiKeys: new ApiKeyService(database, auth),
    users: new UserService(database, auth, config.sessionTtlHours),
    async start() {
      await invalidations.start();
      auth.start();
    },
    async stop() {
      await invalidations.stop();
      await auth.stop();
    },
  };
}
