import type { Config, ProcessRole } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import { limiterFactory, type LimiterFactory } from './http/rate-limit.js';
import { ApiKeyCredentials } from './modules/api-keys/credentials.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { AuthService } from './modules/auth/credentials.js';
import { UserService } from './modules/auth/service.js';
import { TenantService } from './modules/tenants/service.js';
import { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { ANONYMOUS_SCANS, SCANS, ScanWorker, type ScanLog } from './modules/tracking-checker/worker.js';
import { Scanner, type ScannerOptions } from './scanner/index.js';
import { OutboundClient } from './lib/outbound.js';
import { JobEngine } from './jobs/engine.js';
import { MonitorScheduler } from './modules/monitors/scheduler.js';
import { MonitorService } from './modules/monitors/service.js';
import {
  deliveryQueueOptions,
  WEBHOOK_DEAD_LETTERS,
  WEBHOOK_DELIVERIES,
  WebhookService,
} from './modules/webhooks/service.js';
import { REPORT_BUILDS, ReportService } from './modules/reports/service.js';
import { OverviewService } from './modules/overview/service.js';
import { StatusService } from './modules/status/service.js';
import { EventLog } from './modules/events/service.js';
import { ContainerService } from './modules/containers/service.js';
import { ContainerTraffic } from './modules/containers/traffic.js';
import { CONTAINER_TRANSITIONS, ContainerWorker } from './modules/containers/worker.js';
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
  /** The job engine: every process sends jobs, processes with the worker role run them. */
  jobs: JobEngine;
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
  /** Per role of this process: `ok`, or why it cannot take work (`/readyz`). */
  readiness(): Record<string, string>;
  /** Stops background work; `graceful` lets jobs in hand finish (up to the shutdown timeout) or hands them back. */
  stop(options?: { graceful?: boolean }): Promise<void>;
}

/** What the status page shows of the job queues, by what they do. */
const SHOWN_QUEUES: Record<string, string[]> = {
  scans: [SCANS, ANONYMOUS_SCANS],
  'webhook deliveries': [WEBHOOK_DELIVERIES],
  'container transitions': [CONTAINER_TRANSITIONS],
  'report builds': [REPORT_BUILDS],
};

async function queueFigures(jobs: JobEngine) {
  const backlog = await jobs.backlog(Object.values(SHOWN_QUEUES).flat());
  return Object.entries(SHOWN_QUEUES).map(([name, queues]) => {
    const parts = backlog.filter((queue) => queues.includes(queue.name));
    return {
      name,
      waiting: parts.reduce((sum, part) => sum + part.waiting, 0),
      running: parts.reduce((sum, part) => sum + part.running, 0),
      oldest_wait_seconds: Math.max(0, ...parts.map((part) => part.oldestWaitSeconds)),
    };
  });
}

/** The scanner the config describes; tests pass their own (fixture CA, host mapping). */
export function scannerFromConfig(config: Config): Scanner {
  return new Scanner(scannerOptionsFromConfig(config));
}

export function scannerOptionsFromConfig(config: Config): Partial<ScannerOptions> {
  return {
    chromiumPath: config.scanner.chromiumPath,
    hostResolverRules: config.scanner.hostResolverRules ?? '',
    extraCaCertificates: config.scanner.extraCaCertificates?.pems,
    ignoreCertSpkiList: config.scanner.extraCaCertificates?.spkiSha256,
    allowPrivateNetworks: config.allowPrivateNetworks,
    browserConcurrency: config.scanner.concurrency,
    scanTimeoutMs: config.scanner.scanTimeoutMs,
    observationCapMs: config.scanner.observationCapMs,
    ai: config.ai,
  };
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
  const tenants = new TenantService({ database, invalidations }, { cacheTtlMs: config.authCacheTtlMs });
  const outbound = new OutboundClient({
    allowPrivateNetworks: config.allowPrivateNetworks,
    ca: config.outboundCaCertificates,
  });
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
  const scheduler = new MonitorScheduler({ database, outbound, webhooks }, { ...config.monitoring, onError });
  const reports = new ReportService({ database, webhooks, jobs });
  const status = new StatusService(
    { database, scheduler, queues: () => queueFigures(jobs) },
    {
      chromiumPath: config.scanner.chromiumPath,
      workersRunning: runsJobs,
      tickMs: config.monitoring.tickMs,
      checkIntervalMs: config.statusCheckMs,
      onError,
    },
  );
  const events = new EventLog({ database, webhooks });
  const mailer = new Mailer({ ...config.mail, onError });
  const containerWorker = new ContainerWorker(
    { database, outbound, events, invalidations, jobs },
    { delayMs: config.containerTransitionDelayMs },
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
    { database, webhooks, tenants, jobs },
    { scanTimeoutMs: config.scanner.scanTimeoutMs, syncWaitMs: config.scanner.syncWaitMs },
  );
  const scanWorker = new ScanWorker({ database, scanner, webhooks }, { log });
  status.register('Gateway', async () =>
    gateway.listening
      ? { status: 'operational', detail: 'Accepting container traffic.' }
      : { status: 'degraded', detail: 'The gateway is not listening in this instance.' },
  );
  const monitors = new MonitorService({ database, outbound, webhooks, tenants, containers, domains });
  const retention = new RetentionService(
    { monitors, events, traffic, metaPixels },
    {
      ...config.retention,
      checkDays: config.monitoring.retentionDays,
      metaDeliveryDays: config.meta.deliveryRetentionDays,
    },
  );
  jobs.define(WEBHOOK_DEAD_LETTERS, { retentionSeconds: 30 * 86_400 });
  jobs.define(WEBHOOK_DELIVERIES, deliveryQueueOptions(config.webhooks), webhooks.deliver.bind(webhooks), {
    concurrency: 4,
    batchSize: 10,
  });
  jobs.define(
    CONTAINER_TRANSITIONS,
    { policy: 'stately', retryLimit: 5, retryBackoff: true },
    containerWorker.step.bind(containerWorker),
  );
  jobs.define(REPORT_BUILDS, { retryLimit: 2, expireInSeconds: 600 }, reports.buildReport.bind(reports), {
    concurrency: 2,
    batchSize: 1,
  });
  // Scans hold Chromium: a worker takes as many as its browser pool runs; a scan whose worker died runs again.
  const scanJobs = { retryLimit: 1, expireInSeconds: Math.ceil(config.scanner.scanTimeoutMs / 1000) + 120 };
  const scanWork = { concurrency: config.scanner.concurrency, batchSize: 1, onDemand: true };
  jobs.define(SCANS, scanJobs, scanWorker.run.bind(scanWorker), scanWork);
  jobs.define(ANONYMOUS_SCANS, scanJobs, scanWorker.runAnonymous.bind(scanWorker), scanWork);
  jobs.every('status-check', config.statusCheckMs, () => status.evaluate());
  jobs.every('domain-recheck', Math.min(config.dns.recheckIntervalMs, 60_000), () => domains.recheckDue());
  if (config.acme) jobs.every('certificate-issue', config.acme.pollMs, () => certificates.issueDue());
  jobs.every('interrupted-scans', 60_000, () => trackingChecker.failInterruptedScans());
  jobs.every('retention', config.retention.intervalMs, () => retention.pruneOnce());
  return {
    invalidations,
    jobs,
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
    readiness() {
      const states: Record<ProcessRole, () => string> = {
        api: () => 'ok',
        gateway: () => (gateway.listening ? 'ok' : 'not_listening'),
        worker: () => (jobs.isWorking ? 'ok' : 'not_working'),
      };
      return Object.fromEntries(config.roles.map((role) => [role, states[role]()]));
    },
    async start() {
      await invalidations.start();
      auth.start();
      await jobs.start({ work: runsJobs ? 'all' : isWorker ? 'on-demand' : 'none' });
      if (runsJobs) {
        await trackingChecker.failInterruptedScans().catch(onError);
        scheduler.start();
        await containerWorker.resumeUnfinished();
      }
    },
    async stop({ graceful = true } = {}) {
      await scheduler.stop();
      await jobs.stop({ graceful, timeoutMs: config.shutdownTimeoutMs });
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
