import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import { AuthService } from './http/auth.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { UserService } from './modules/auth/service.js';
import { TenantService } from './modules/tenants/service.js';
import { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { Scanner } from './scanner/index.js';

/** The domain services of one instance, shared by the HTTP routes and the CLI. */
export interface Services {
  invalidations: InvalidationBus;
  auth: AuthService;
  tenants: TenantService;
  apiKeys: ApiKeyService;
  users: UserService;
  scanner: Scanner;
  trackingChecker: TrackingCheckerService;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The scanner the config describes; tests pass their own (fixture CA, host mapping). */
export function scannerFromConfig(config: Config): Scanner {
  return new Scanner({
    chromiumPath: config.scanner.chromiumPath,
    hostResolverRules: config.scanner.hostResolverRules ?? '',
    allowPrivateNetworks: config.allowPrivateNetworks,
    browserConcurrency: config.scanner.concurrency,
    scanTimeoutMs: config.scanner.scanTimeoutMs,
    ai: config.ai,
  });
}

export function createServices(database: Database, config: Config, scanner: Scanner = scannerFromConfig(config)): Services {
  const invalidations = new InvalidationBus(database);
  const auth = new AuthService(database, config, invalidations);
  return {
    invalidations,
    auth,
    tenants: new TenantService(database, invalidations, config.authCacheTtlMs),
    apiKeys: new ApiKeyService(database, auth),
    users: new UserService(database, auth, config.sessionTtlHours),
    scanner,
    trackingChecker: new TrackingCheckerService(database, scanner),
    async start() {
      await invalidations.start();
      auth.start();
    },
    async stop() {
      await invalidations.stop();
      await auth.stop();
      await scanner.close();
    },
  };
}
