import type { Config, ProcessRole } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import { limiterFactory, type LimiterFactory } from './http/rate-limit.js';
import { ApiKeyCredentials } from './modules/api-keys/credentials.js';
import { DeprecatedCallLog } from './modules/api-keys/deprecated-calls.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { AuthService } from './modules/auth/credentials.js';
import { UserService } from './modules/auth/service.js';
import { TenantService } from './modules/tenants/service.js';
import { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { ScanWorker, type ScanLog } from './modules/tracking-checker/worker.js';
import type { Scanner } from './scanner/index.js';
import type { OutboundClient } from './lib/outbound.js';
import { outboundClientFromConfig, scannerFromConfig } from './outbound-setup.js';
import { JobEngine } from './jobs/engine.js';
import { MonitorChecks } from './modules/monitors/checks.js';
import { MonitorService } from './modules/monitors/service.js';
import { WebhookService } from './modules/webhooks/service.js';
import { ReportService } from './modules/reports/service.js';
import { OverviewService } from './modules/overview/service.js';
import { StatusService } from './modules/status/service.js';
import { StatusIncidents } from './modules/status/incidents.js';
import { StatusSubscriptions } from './modules/status/subscriptions.js';
import { EventLog } from './modules/events/service.js';
import { ContainerService } from './modules/containers/service.js';
import { createDataPlane } from './gateway-setup.js';
import { ContainerWorker } from './modules/containers/worker.js';
import { DomainVerifier } from './modules/domains/dns.js';
import { DomainService } from './modules/domains/service.js';
import type { Gateway } from './gateway/server.js';
import { ContainerHealth } from './gateway/health.js';
import type { NginxEngine } from './gateway/native/engine.js';
import type { TlsGateway } from './gateway/tls.js';
import type { BuiltinRuntime } from './gateway/runtime/index.js';
import { MetaConversionsSender } from './gateway/runtime/meta/sender.js';
import { MetaSink } from './gateway/runtime/meta/sink.js';
import { CertificateService } from './modules/certificates/service.js';
import { platformRequestToken, SecretBox, userSecretsBox } from './lib/secrets.js';
import { SecurityService } from './modules/security/service.js';
import { MetaPixelService } from './modules/meta-pixels/service.js';
import { OutgoingLogService } from './modules/outgoing-log/service.js';
import { RetentionService } from './modules/retention/service.js';
import { RequestPowerupService } from './modules/request-powerups/service.js';
import { MemberService } from './modules/members/service.js';
import { InvitationService } from './modules/members/invitations.js';
import { Mailer } from './lib/mail.js';
import { defineJobs, MONITOR_DISPATCH_MS, monitoringLag, queueFigures } from './background-jobs.js';
import { NotificationService } from './modules/notifications/service.js';
import { NotificationWorker } from './modules/notifications/worker.js';
import { ForwardingAlerts } from './modules/containers/forwarding-alerts.js';
import { containerTaggingServers } from './modules/containers/tagging.js';
import { supervisorFromConfig } from './modules/tagging-servers/drivers.js';
import type { TaggingServerSupervisor } from './modules/tagging-servers/supervisor.js';

export { scannerFromConfig, scannerOptionsFromConfig } from './outbound-setup.js';

/** The domain services of one instance, shared by the HTTP routes and the CLI. */
export interface Services {
  invalidations: InvalidationBus;
  /** The job engine: every process sends jobs, processes with the worker role run them. */
  jobs: JobEngine;
  auth: AuthService;
  tenants: TenantService;
  apiKeys: ApiKeyService;
  deprecatedCalls: DeprecatedCallLog;
  users: UserService;
  security: SecurityService;
  scanner: Scanner;
  trackingChecker: TrackingCheckerService;
  outbound: OutboundClient;
  webhooks: WebhookService;
  monitors: MonitorService;
  /** Deletes what is older than each growing table's retention (RetentionService.pruneOnce). */
  retention: RetentionService;
  /** Monitor checks as jobs: the dispatch step that queues due checks, and the check itself. */
  monitorChecks: MonitorChecks;
  reports: ReportService;
  overview: OverviewService;
  status: StatusService;
  /** Incidents and maintenance that platform operators post. */
  statusIncidents: StatusIncidents;
  /** Feed, email and webhook subscribers of the status page. */
  statusSubscriptions: StatusSubscriptions;
  events: EventLog;
  containers: ContainerService;
  containerWorker: ContainerWorker;
  domains: DomainService;
  certificates: CertificateService;
  /** Meta pixels of containers (Conversions API credentials) and the Graph API's answers per event. */
  metaPixels: MetaPixelService;
  /** What the runtime sent to GA4 and Meta and what they answered, per container. */
  outgoingLog: OutgoingLogService;
  /** Request Delay and Schedule: delayed requests and scheduled runs per container, and the jobs sending them. */
  requestPowerups: RequestPowerupService;
  /** The people of a tenant and their roles. */
  members: MemberService;
  /** Invitations to a tenant by email. */
  invitations: InvitationService;
  /** Notification channels (email, Slack-compatible, webhook) and where each event's alerts go. */
  notifications: NotificationService;
  /** Outgoing email (SMTP_URL); sends nothing when it is unset. */
  mailer: Mailer;
  gateway: Gateway;
  /** The gateway's TLS listener when GATEWAY_TLS_PORT is set; it listens once `listen()` is called (the CLI does). */
  gatewayTls: TlsGateway | null;
  /** GATEWAY_ENGINE=nginx: nginx serves the gateway's ports; it starts once `start()` is called (the CLI does). */
  nativeGateway: NginxEngine | null;
  /** What containers with `runtime: builtin` run on: the custom loader and event forwarding. */
  runtime: BuiltinRuntime;
  /**
   * The process driver's supervisor of Google's tagging servers (`sgtm` containers), in a process with the gateway
   * role when SGTM_COMMAND is set; it runs once `start()` is called (the CLI does, beside the gateway).
   */
  taggingSupervisor: TaggingServerSupervisor | null;
  start(): Promise<void>;
  /** Per role of this process: `ok`, or why it cannot take work (`/readyz`). */
  readiness(): Record<string, string>;
  /** GATEWAY_WORKERS > 1: the gateway listens in forked workers; `/readyz` asks them instead of this process. */
  serveGatewayElsewhere(listening: () => boolean): void;
  /** Stops background work; `graceful` lets jobs in hand finish (up to the shutdown timeout) or hands them back. */
  stop(options?: { graceful?: boolean }): Promise<void>;
}

/**
 * Whether the built-in runtime serves: this process's runtime when it has the gateway role; a process without it
 * (an API instance) cannot see the gateways' runtimes and does not call them unhealthy.
 */
function builtinRuntimeReady(config: Config, runtime: BuiltinRuntime): () => boolean {
  return config.roles.includes('gateway') ? () => runtime.ready : () => true;
}

export function createServices(
  database: Database,
  config: Config,
  scanner: Scanner = scannerFromConfig(config),
  onError: (error: unknown) => void = () => {},
  /** The app passes its rate limits' factory, so the login throttle is shared through Redis too. */
  createLimiter: LimiterFactory = limiterFactory(null),
  /** Where workers log what a request's scan ran into (the app's logger). */
  log: ScanLog = { warn: () => {} },
): Services {
  const invalidations = new InvalidationBus(database);
  const auth = new AuthService(
    { database, invalidations, apiKeys: new ApiKeyCredentials({ database }) },
    { cacheTtlMs: config.authCacheTtlMs, lastUsedFlushMs: config.lastUsedFlushMs },
  );
  // Counted like last_used_at: in memory, written in one statement per flush.
  const deprecatedCalls = new DeprecatedCallLog({ database }, { flushMs: config.lastUsedFlushMs });
  const tenants = new TenantService({ database, invalidations }, { cacheTtlMs: config.authCacheTtlMs });
  const outbound = outboundClientFromConfig(config);
  const isWorker = config.roles.includes('worker');
  /** RUN_WORKERS=false keeps background jobs off; a worker still runs the scans requests wait for. */
  const runsJobs = config.runWorkers && isWorker;
  const jobs = new JobEngine(
    { store: database.jobs },
    {
      pollingIntervalSeconds: config.jobs.pollMs / 1000,
      superviseIntervalSeconds: config.jobs.superviseSeconds,
      instanceName: `tagport ${config.roles.join(',')}`,
      onError,
    },
  );
  const webhooks = new WebhookService({ database, outbound, jobs }, config.webhooks);
  const events = new EventLog({ database, webhooks });
  const monitorChecks = new MonitorChecks(
    { database, outbound, events, jobs },
    // The dispatch job runs every second and is picked up within a poll: checks are queued that far ahead.
    { lookaheadMs: MONITOR_DISPATCH_MS + 2 * config.jobs.pollMs + 1000, batchSize: 1000 },
  );
  const reports = new ReportService({ database, events, jobs });
  const mailer = new Mailer({ ...config.mail, onError });
  const statusSubscriptions = new StatusSubscriptions(
    { database, jobs, mailer, outbound },
    { baseUrl: config.publicBaseUrl ?? `http://localhost:${config.port}`, webhookTimeoutMs: config.webhooks.timeoutMs },
  );
  const statusIncidents = new StatusIncidents({ database, subscriptions: statusSubscriptions });
  const status = new StatusService(
    {
      database,
      monitoringLag: () => monitoringLag(jobs, monitorChecks),
      queues: () => queueFigures(jobs),
      incidents: statusIncidents,
    },
    {
      failuresToOpen: config.statusFailuresToOpen,
      chromiumPath: config.scanner.chromiumPath,
      workersRunning: runsJobs,
      checkIntervalMs: config.statusCheckMs,
      onError,
    },
  );
  const drivers = { database, invalidations, secrets: userSecretsBox(config) };
  const taggingServers = containerTaggingServers(config, { ...drivers, tenants }, () => tlsPort());
  const taggingSupervisor = config.roles.includes('gateway')
    ? supervisorFromConfig(config.taggingServers, drivers, onError)
    : null;
  const containerWorker = new ContainerWorker(
    { database, outbound, events, invalidations, jobs, tagging: taggingServers },
    { delayMs: config.containerTransitionDelayMs, startTimeoutMs: config.taggingServers.startTimeoutMs },
  );
  const security = new SecurityService({ database, auth, box: userSecretsBox(config) });
  const secrets = config.secretsKey ? new SecretBox(config.secretsKey) : null;
  const certificates = new CertificateService({ database, events, invalidations }, { acme: config.acme, secrets });
  const { traffic, runtime, outgoing, gateway, gatewayTls, nativeGateway, tlsPort } = createDataPlane(config, {
    database,
    invalidations,
    outbound,
    certificates,
    tagging: taggingServers.hosting,
    onError,
    log,
  });
  const containers = new ContainerService(
    {
      database,
      outbound,
      events,
      runtime: containerWorker,
      tenants,
      traffic: gateway,
      invalidations,
      health: new ContainerHealth(
        outbound,
        config.gateway.upstreamTimeoutMs,
        builtinRuntimeReady(config, runtime),
        async (containerId) => (await taggingServers.hosting.endpoints(containerId)).tagging,
      ),
      tagging: taggingServers,
    },
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
  const outgoingLog = new OutgoingLogService({ database, containers, writer: outgoing }, config.retention);
  const metaSink = new MetaSink(
    { pixels: metaPixels, sender: new MetaConversionsSender({ http: outbound }, config.meta), invalidations },
    { maxAttempts: config.runtime.forwardMaxAttempts, onError },
  );
  runtime.addSink(metaSink.sink);
  const trackingChecker = new TrackingCheckerService(
    { database, events, tenants, jobs },
    { scanTimeoutMs: config.scanner.scanTimeoutMs, syncWaitMs: config.scanner.syncWaitMs },
  );
  const scanWorker = new ScanWorker({ database, scanner, events }, { log });
  status.register('Gateway', async () =>
    gateway.listening
      ? { status: 'operational', detail: 'Accepting container traffic.' }
      : { status: 'degraded', detail: 'The gateway is not listening in this instance.' },
  );
  if (!taggingServers.hosting.unavailable)
    status.register('Tagging servers', () => taggingServers.hosting.reachability());
  const notifications = new NotificationService(
    { database, outbound, box: userSecretsBox(config), jobs },
    { dashboardUrl: config.publicBaseUrl ?? `http://localhost:${config.port}` },
  );
  events.onRecord((event) => notifications.notify(event));
  const notificationWorker = new NotificationWorker({ database, outbound, mailer, notifications }, config.webhooks);
  const monitors = new MonitorService({
    database,
    outbound,
    events,
    tenants,
    containers,
    domains,
    channels: notifications,
  });
  const retention = new RetentionService(
    { monitors, events, traffic, metaPixels },
    {
      ...config.retention,
      checkDays: config.monitoring.retentionDays,
      metaDeliveryDays: config.meta.deliveryRetentionDays,
    },
  );
  const requestPowerups = new RequestPowerupService(
    { database, containers },
    { ...config.powerupRequests, platformToken: platformRequestToken(config) },
  );
  let gatewayListening = () => gateway.listening;
  defineJobs(
    jobs,
    {
      webhooks,
      notificationWorker,
      containerWorker,
      reports,
      scanWorker,
      monitorChecks,
      statusSubscriptions,
      status,
      domains,
      certificates,
      trackingChecker,
      retention,
      forwardingAlerts: new ForwardingAlerts({ database, events }),
      requestPowerups,
      outgoingLog,
    },
    config,
  );
  return {
    invalidations,
    jobs,
    auth,
    tenants,
    apiKeys: new ApiKeyService({ database, auth, deprecatedCalls }),
    deprecatedCalls,
    users: new UserService({ database, auth, security, createLimiter }, { sessionTtlHours: config.sessionTtlHours }),
    security,
    scanner,
    trackingChecker,
    outbound,
    webhooks,
    monitors,
    retention,
    monitorChecks,
    overview: new OverviewService({ database, tenants, trackingChecker }),
    reports,
    status,
    statusIncidents,
    statusSubscriptions,
    events,
    containers,
    containerWorker,
    domains,
    certificates,
    metaPixels,
    outgoingLog,
    requestPowerups,
    members: new MemberService({ database, auth, events }),
    invitations: new InvitationService({ database, events, mailer }),
    notifications,
    mailer,
    gateway,
    gatewayTls,
    nativeGateway,
    runtime,
    taggingSupervisor,
    readiness() {
      const states: Record<ProcessRole, () => string> = {
        api: () => 'ok',
        gateway: () => (gatewayListening() ? 'ok' : 'not_listening'),
        worker: () => (jobs.isWorking ? 'ok' : 'not_working'),
      };
      return Object.fromEntries(config.roles.map((role) => [role, states[role]()]));
    },
    serveGatewayElsewhere(listening) {
      gatewayListening = listening;
    },
    async start() {
      await invalidations.start();
      auth.start();
      deprecatedCalls.start();
      await jobs.start({ work: runsJobs ? 'all' : isWorker ? 'on-demand' : 'none' });
      if (runsJobs) {
        await trackingChecker.failInterruptedScans().catch(onError);
        await containerWorker.resumeUnfinished();
      }
    },
    async stop({ graceful = true } = {}) {
      await taggingSupervisor?.stop().catch(onError);
      await jobs.stop({ graceful, timeoutMs: config.shutdownTimeoutMs });
      await gatewayTls?.close();
      await nativeGateway?.stop();
      await gateway.close();
      await runtime.stop();
      await gateway.flush().catch(onError);
      await requestPowerups.close();
      await outgoing.flush();
      await invalidations.stop();
      await auth.stop();
      await deprecatedCalls.stop();
      await scanner.close();
      await outbound.close();
      mailer.close();
    },
  };
}
