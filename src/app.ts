import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { handleClientError, handleFrameworkError, registerConventions } from './http/conventions.js';
import { loggableError } from './http/errors.js';
import { registerRequestGuard } from './http/guard.js';
import { registerCreatedLocation } from './http/location.js';
import { type Deprecation, DEPRECATIONS, registerDeprecations } from './http/deprecations.js';
import { registerOpenApi } from './http/openapi.js';
import { lazyChildLogger } from './http/request-logger.js';
import { RateLimits } from './http/rate-limit.js';
import { newId } from './lib/ids.js';
import { createServices, type Services } from './services.js';
import { apiKeyRoutes } from './modules/api-keys/routes.js';
import { authRoutes } from './modules/auth/routes.js';
import { securityRoutes } from './modules/security/routes.js';
import { systemRoutes } from './modules/system/routes.js';
import { tenantRoutes } from './modules/tenants/routes.js';
import { trackingCheckerRoutes } from './modules/tracking-checker/routes.js';
import type { Scanner } from './scanner/index.js';
import { webRoutes } from './web/routes.js';
import { monitorRoutes } from './modules/monitors/routes.js';
import { trackingMonitorRoutes } from './modules/tracking-monitors/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { notificationRoutes } from './modules/notifications/routes.js';
import { webhookDocumentation } from './modules/webhooks/openapi.js';
import { reportRoutes } from './modules/reports/routes.js';
import { overviewRoutes } from './modules/overview/routes.js';
import { statusRoutes } from './modules/status/routes.js';
import { statusPageRoutes } from './modules/status/pages.js';
import { containerRoutes } from './modules/containers/routes.js';
import { domainRoutes } from './modules/domains/routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { metaPixelRoutes } from './modules/meta-pixels/routes.js';
import { outgoingLogRoutes } from './modules/outgoing-log/routes.js';
import { memberRoutes } from './modules/members/routes.js';
import { requestPowerupRoutes } from './modules/request-powerups/routes.js';
import { releaseTranspiler } from './lib/transpiler.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The domain services (src/services.ts); declared here, above every module, so no module's import reaches them. */
    services: Services;
  }
}

/**
 * Bodies are validated strictly (no type coercion) and report every issue, so a form can mark each wrong field;
 * query strings and path params are coerced from text.
 */
function buildValidators() {
  const base = { allErrors: false, useDefaults: true, removeAdditional: false as const, strict: false };
  const body = new Ajv({ ...base, allErrors: true, coerceTypes: false });
  const text = new Ajv({ ...base, coerceTypes: 'array' as const });
  for (const ajv of [body, text]) addFormats.default(ajv);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? body : text).compile(schema);
}

export interface AppDependencies {
  config: Config;
  database: Database;
  /** Replaces the scanner built from config (tests: fixture CA and host mapping). */
  scanner?: Scanner;
  /** The deprecations in force (src/http/deprecations.ts); tests pass their own. */
  deprecations?: readonly Deprecation[];
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

/** Builds the Fastify app. The caller owns the database; app.close() stops the app's own services. */
export async function buildApp({
  config,
  database,
  scanner,
  logStream,
  deprecations = DEPRECATIONS,
}: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    // Fastify's request serializer logs method, url, host and remote address, never headers, so tokens and
    // cookies stay out of the logs without a redaction pass (which cost ~10 µs per request). Errors are logged
    // without the parameters of a failed statement (secrets, token hashes): see loggableError.
    logger:
      config.logLevel === 'silent'
        ? false
        : { level: config.logLevel, serializers: { err: loggableError }, ...(logStream ? { stream: logStream } : {}) },
    genReqId: () => newId('request'),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    return503OnClosing: true,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(buildValidators());
  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('rateLimits', new RateLimits(config));
  app.decorate(
    'services',
    createServices({
      database,
      config,
      scanner,
      onError: (error) => app.log.error({ err: error }, 'background work failed'),
      createLimiter: app.rateLimits.createLimiter,
      log: app.log,
    }),
  );
  app.decorateRequest('authContext', null);

  await app.services.start();
  await app.rateLimits.ready();
  // Start-up's modules are loaded once the listener opens, before its first request: esbuild (tsx's compiler) can go.
  app.addHook('onListen', async () => releaseTranspiler());
  app.addHook('onClose', async () => {
    await app.services.stop().catch((error: unknown) => app.log.warn({ err: error }, 'could not flush last_used_at'));
    await app.rateLimits.close();
  });

  registerConventions(app);
  // JSON only: anything else is 415 rather than a string the schema then rejects.
  app.removeContentTypeParser(['text/plain']);
  await app.register(cookie, { secret: config.cookieSecret });
  await app.register(csrf, {
    cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', secure: config.secureCookies, path: '/' },
  });

  registerRequestGuard(app);
  registerCreatedLocation(app);
  registerDeprecations(app, deprecations);

  // Without the api role the listener only answers the probes (/healthz, /readyz).
  const servesApi = config.roles.includes('api');
  if (servesApi) await registerOpenApi(app, { ...webhookDocumentation(), deprecations });
  await app.register(systemRoutes);
  if (!servesApi) return app;
  await app.register(authRoutes);
  await app.register(securityRoutes);
  await app.register(tenantRoutes);
  await app.register(memberRoutes);
  await app.register(apiKeyRoutes);
  await app.register(trackingCheckerRoutes);
  await app.register(monitorRoutes);
  await app.register(trackingMonitorRoutes);
  await app.register(webhookRoutes);
  await app.register(notificationRoutes);
  await app.register(reportRoutes);
  await app.register(statusRoutes);
  await app.register(statusPageRoutes);
  await app.register(containerRoutes);
  await app.register(domainRoutes);
  await app.register(metaPixelRoutes);
  await app.register(outgoingLogRoutes);
  await app.register(requestPowerupRoutes);
  await app.register(eventRoutes);
  await app.register(overviewRoutes);
  await app.register(webRoutes);
  return app;
}
