import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import { limiterFactory, type LimiterFactory } from './http/rate-limit.js';
import { ApiKeyCredentials } from './modules/api-keys/credentials.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { AuthService } from './modules/auth/credentials.js';
import { UserService } from './modules/auth/service.js';
import { TenantService } from './modules/tenants/service.js';
import { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { Scanner } from './scanner/index.js';
import { OutboundClient } from './lib/outbound.js';
import { startLoop } from './lib/loop.js';
import { MonitorScheduler } from './modules/monitors/scheduler.js';
import { MonitorService } from './modules/monitors/service.js';
import { WebhookService } from './modules/webhooks/service.js';
import { ReportService } from './modules/reports/service.js';
import { OverviewService } from './modules/overview/service.js';
import { StatusService } from './modules/status/service.js';
import { EventLog } from './modules/events/service.js';
import { ContainerService } from './modules/containers/service.js';
import { ContainerTraffic } from './modules/containers/traffic.js';
import { ContainerWorker } from './modules/containers/worker.js';
import { DomainVerifier } from './modules/domains/dns.js';
import { DomainService } from './modules/domains/service.js';
import { Gateway } from './gateway/server.js';
import { GatewayFront } from './gateway/front.js';
import { TlsGateway } from './gateway/tls.js';
import { BuiltinRuntime } from './gateway/runtime/index.js';
import { MetaConversionsSender } from './gateway/runtime/meta/sender.js';
import { MetaSink } from './gateway/runtime/meta/sink.js';
import { CertificateService } from './modules/certificates/service.js';
import { SecretBox, userSecretsBox } from './lib/secrets.js';
import { SecurityService } from './modules/security/service.js';
import { MetaPixelService } from './modules/meta-pixels/service.js';
import { RetentionService } from './modules/retention/service.js';
import { MemberService } from './modules/members/service.js';
import { InvitationService } from './modules/members/invitations.js';
import { Mailer } from './lib/mail.js';

/** The domain services of one instance, shared by the HTTP routes and the CLI. */
export interface Services {
  invalidations: InvalidationBus;
  auth: AuthService;
  tenants: TenantService;
  apiKeys: ApiKeyService;
  users: UserService;
  security: SecurityService;
  scanner: Scanner;
  trackingChecker: TrackingCheckerService;
  outbound: OutboundClient;
  webhooks: WebhookService;
  monitors: MonitorService;
  /** Deletes what is older than each growing table's retention (RetentionService.pruneOnce). */
  retention: RetentionService;
  scheduler: MonitorScheduler;
  reports: ReportService;
  overview: OverviewService;
  status: StatusService;
  events: EventLog;
  containers: ContainerService;
  containerWorker: ContainerWorker;
  domains: DomainService;
  certificates: CertificateService;
  /** Meta pixels of containers (Conversions API credentials) and the Graph API's answers per event. */
  metaPixels: MetaPixelService;
  /** The people of a tenant and their roles. */
  members: MemberService;
  /** Invitations to a tenant by email. */
  invitations: InvitationService;
  /** Outgoing email (SMTP_URL); sends nothing when it is unset. */
  mailer: Mailer;
  gateway: Gateway;
  /** The gateway's TLS listener when GATEWAY_TLS_PORT is set; it listens once `listen()` is called (the CLI does). */
  gatewayTls: TlsGateway | null;
  /** What containers with `runtime: builtin` run on: the custom loader and event forwarding. */
  runtime: BuiltinRuntime;
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
    observationCapMs: config.scanner.observationCapMs,
    ai: config.ai,
  });
}

export function createServices(
  database: Database,
  config: Config,
  scanner: Scanner = scannerFromConfig(config),
  onError: (error: unknown) => void = () => {},
  /** The app passes its rate limits' factory, so the login throttle is shared through Redis too. */
  createLimiter: LimiterFactory = limiterFactory(null),
): Services {
  const invalidations = new InvalidationBus(database);
  const auth = new AuthService(
    { database, invalidations, apiKeys: new ApiKeyCredentials({ database }) },
    { cacheTtlMs: config.authCacheTtlMs, lastUsedFlushMs: config.lastUsedFlushMs },
  );
  const tenants = new TenantService({ database, invalidations }, { cacheTtlMs: config.authCacheTtlMs });
  const outbound = new OutboundClient({
    allowPrivateNetworks: config.allowPrivateNetworks,
    ca: config.outboundCaCertificates,
  });
  const webhooks = new WebhookService({ database, outbound }, config.webhooks);
  const scheduler = new MonitorScheduler({ database, outbound, webhooks }, { ...config.monitoring, onError });
  const reports = new ReportService({ database, webhooks });
  const status = new StatusService(
    { database, scheduler },
    { chromiumPath: config.scanner.chromiumPath, workersRunning: config.runWorkers, tickMs: config.monitoring.tickMs },
  );
  const events = new EventLog({ database, webhooks });
  const mailer = new Mailer({ ...config.mail, onError });
  const containerWorker = new ContainerWorker(
    { database, outbound, events, invalidations },
    { delayMs: config.containerTransitionDelayMs, onError },
  );
  const security = new SecurityService({ database, auth, box: userSecretsBox(config) });
  const secrets = config.secretsKey ? new SecretBox(config.secretsKey) : null;
  const certificates = new CertificateService({ database, events, invalidations }, { acme: config.acme, secrets });
  const traffic = new ContainerTraffic({ database });
  const runtime = new BuiltinRuntime(
    { dispatcher: outbound.dispatcher, traffic },
    { ...config.runtime, trustProxy: config.trustProxy, onError },
  );
  const gateway = new Gateway(
    {
      traffic,
      runtime,
      invalidations,
      outbound,
      front: new GatewayFront(certificates.enabled ? certificates : null, () => gatewayTls?.port ?? null, onError),
    },
    { ...config.gateway, onError },
  );
  const tlsPort = config.gateway.tlsPort ?? null;
  const gatewayTls =
    tlsPort === null
      ? null
      : new TlsGateway(
          { certificates: certificates.enabled ? certificates : null, invalidations, handler: gateway.requestListener },
          {
            baseDomain: config.gateway.baseDomain,
            certFile: config.gateway.tlsCertFile ?? null,
            keyFile: config.gateway.tlsKeyFile ?? null,
            onError,
          },
        );
  const containers = new ContainerService(
    { database, outbound, events, runtime: containerWorker, tenants, traffic: gateway, invalidations },
    { gatewayBaseDomain: config.gateway.baseDomain },
  );
  const domains = new DomainService(
    {
      database,
      containers,
      certificates,
      events,
      invalidations,
      verifier: new DomainVerifier({
        servers: config.dns.resolvers,
        timeoutMs: config.dns.timeoutMs,
        gatewayIps: config.gateway.publicIps,
      }),
    },
    {
      gatewayBaseDomain: config.gateway.baseDomain,
      gatewayIps: config.gateway.publicIps,
      recheckIntervalMs: config.dns.recheckIntervalMs,
      pendingTtlMs: config.domainPendingTtlHours * 3_600_000,
    },
  );
  const metaPixels = new MetaPixelService({ database, containers, invalidations }, { secrets });
  const metaSink = new MetaSink(
    { pixels: metaPixels, sender: new MetaConversionsSender({ http: outbound }, config.meta), invalidations },
    { maxAttempts: config.runtime.forwardMaxAttempts, onError },
  );
  runtime.addSink(metaSink.sink);
  const trackingChecker = new TrackingCheckerService(
    { database, scanner, webhooks, tenants },
    { scanTimeoutMs: config.scanner.scanTimeoutMs },
  );
  status.register('Gateway', async () =>
    gateway.listening
      ? { status: 'operational', detail: 'Accepting container traffic.' }
      : { status: 'degraded', detail: 'The gateway is not listening in this instance.' },
  );
  let recheckLoop: { stop(): Promise<void> } | null = null;
  let certificateLoop: { stop(): Promise<void> } | null = null;
  let deliveryLoop: { stop(): Promise<void> } | null = null;
  let reportLoop: { stop(): Promise<void> } | null = null;
  let interruptedScanLoop: { stop(): Promise<void> } | null = null;
  let retentionLoop: { stop(): Promise<void> } | null = null;
  const monitors = new MonitorService({ database, outbound, webhooks, tenants, containers, domains });
  const retention = new RetentionService(
    { monitors, events, traffic, metaPixels },
    {
      ...config.retention,
      checkDays: config.monitoring.retentionDays,
      metaDeliveryDays: config.meta.deliveryRetentionDays,
    },
  );
  return {
    invalidations,
    auth,
    tenants,
    apiKeys: new ApiKeyService({ database, auth }),
    users: new UserService({ database, auth, security, createLimiter }, { sessionTtlHours: config.sessionTtlHours }),
    security,
    scanner,
    trackingChecker,
    outbound,
    webhooks,
    monitors,
    retention,
    scheduler,
    overview: new OverviewService({ database, tenants, trackingChecker }),
    reports,
    status,
    events,
    containers,
    containerWorker,
    domains,
    certificates,
    metaPixels,
    members: new MemberService({ database, auth, events }),
    invitations: new InvitationService({ database, events, mailer }),
    mailer,
    gateway,
    gatewayTls,
    runtime,
    async start() {
      await invalidations.start();
      auth.start();
      if (config.runWorkers) {
        scheduler.start();
        deliveryLoop = startLoop(() => webhooks.deliverDue(), config.webhooks.pollMs, onError);
        status.start(config.statusCheckMs, onError);
        await containerWorker.start();
        recheckLoop = startLoop(() => domains.recheckDue(), Math.min(config.dns.recheckIntervalMs, 60_000), onError);
        if (config.acme) certificateLoop = startLoop(() => certificates.issueDue(), config.acme.pollMs, onError);
        reportLoop = startLoop(
          async () => {
            while (await reports.runNext());
          },
          config.webhooks.pollMs,
          onError,
        );
        await trackingChecker.failInterruptedScans().catch(onError);
        interruptedScanLoop = startLoop(() => trackingChecker.failInterruptedScans(), 60_000, onError);
        retentionLoop = startLoop(() => retention.pruneOnce(), config.retention.intervalMs, onError);
      }
    },
    async stop() {
      await scheduler.stop();
      await deliveryLoop?.stop();
      await reportLoop?.stop();
      await interruptedScanLoop?.stop();
      await retentionLoop?.stop();
      await status.stop();
      await recheckLoop?.stop();
      await certificateLoop?.stop();
      await containerWorker.stop();
      await gatewayTls?.close();
      await gateway.close();
      await runtime.stop();
      await gateway.flush().catch(onError);
      await invalidations.stop();
      await auth.stop();
      await scanner.close();
      await outbound.close();
      mailer.close();
    },
  };
}
