import type { Config, ProcessRole } from './config.js';
import type { Database } from './db/index.js';
import { InvalidationBus } from './db/invalidation.js';
import type { NginxEngine } from './gateway/native/engine.js';
import type { BuiltinRuntime } from './gateway/runtime/index.js';
import type { Gateway } from './gateway/server.js';
import type { TlsGateway } from './gateway/tls.js';
import { limiterFactory, type LimiterFactory } from './http/rate-limit.js';
import { queueFigures, registerJobs, type JobDefinition } from './jobs/definitions.js';
import { JobEngine } from './jobs/engine.js';
import { Mailer } from './lib/mail.js';
import type { OutboundClient } from './lib/outbound.js';
import type { DeprecatedCallLog } from './modules/api-keys/deprecated-calls.js';
import type { ApiKeyService } from './modules/api-keys/service.js';
import type { AuthService } from './modules/auth/credentials.js';
import type { UserService } from './modules/auth/service.js';
import type { CertificateService } from './modules/certificates/service.js';
import type { ContainerService } from './modules/containers/service.js';
import type { ContainerWorker } from './modules/containers/worker.js';
import type { DomainService } from './modules/domains/service.js';
import { EventLog } from './modules/events/service.js';
import type { InvitationService } from './modules/members/invitations.js';
import type { MemberService } from './modules/members/service.js';
import type { MetaPixelService } from './modules/meta-pixels/service.js';
import type { MonitorChecks } from './modules/monitors/checks.js';
import type { MonitorService } from './modules/monitors/service.js';
import type { TrackingRuns } from './modules/tracking-monitors/runs.js';
import type { TrackingMonitorService } from './modules/tracking-monitors/service.js';
import type { NotificationService } from './modules/notifications/service.js';
import type { OutgoingLogService } from './modules/outgoing-log/service.js';
import { OverviewService } from './modules/overview/service.js';
import { reportJobs } from './modules/reports/jobs.js';
import { ReportService } from './modules/reports/service.js';
import type { RequestPowerupService } from './modules/request-powerups/service.js';
import { retentionJobs } from './modules/retention/jobs.js';
import { RetentionService } from './modules/retention/service.js';
import type { SecurityService } from './modules/security/service.js';
import type { StatusIncidents } from './modules/status/incidents.js';
import type { StatusService } from './modules/status/service.js';
import type { StatusSubscriptions } from './modules/status/subscriptions.js';
import type { TaggingServerSupervisor } from './modules/tagging-servers/supervisor.js';
import type { TenantService } from './modules/tenants/service.js';
import { scanJobs } from './modules/tracking-checker/jobs.js';
import { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { ScanWorker, type ScanLog } from './modules/tracking-checker/worker.js';
import { webhookJobs } from './modules/webhooks/jobs.js';
import { WebhookService } from './modules/webhooks/service.js';
import { outboundClientFromConfig, scannerFromConfig } from './outbound-setup.js';
import type { Scanner } from './scanner/index.js';
import { buildAccounts } from './wiring/accounts.js';
import { buildHosting } from './wiring/hosting.js';
import { buildMonitoring } from './wiring/monitoring.js';
import type { Shared } from './wiring/shared.js';

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
  /** Scheduled scans of a site's key pages compared with a baseline, and their incidents. */
  trackingMonitors: TrackingMonitorService;
  /** Tracking monitor runs as jobs: the dispatch step that queues due runs, and the run itself. */
  trackingRuns: TrackingRuns;
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

export interface ServiceOptions {
  database: Database;
  config: Config;
  scanner?: Scanner;
  onError?: (error: unknown) => void;
  /** The app passes its rate limits' factory, so the login throttle is shared through Redis too. */
  createLimiter?: LimiterFactory;
  /** Where workers log what a request's scan ran into (the app's logger). */
  log?: ScanLog;
}

/** The composition root: the shared plumbing, then each area (accounts, hosting, scanning, monitoring) and its jobs. */
export function createServices({
  database,
  config,
  scanner = scannerFromConfig(config),
  onError = () => {},
  createLimiter = limiterFactory(null),
  log = { warn: () => {} },
}: ServiceOptions): Services {
  const invalidations = new InvalidationBus(database);
  const outbound = outboundClientFromConfig(config);
  const isWorker = config.roles.includes('worker');
  /** RUN_WORKERS=false keeps background jobs off; a worker still runs the scans requests wait for. */
  const runsJobs = config.runWorkers && isWorker;
  const jobs = new JobEngine(
    // One process on PGlite: its own wake-ups reach every worker there is, with no NOTIFY.
    { store: database.jobs, signals: database.kind === 'postgres' ? database : null },
    {
      pollingIntervalSeconds: config.jobs.pollMs / 1000,
      backstopPollSeconds: config.jobs.backstopPollMs / 1000,
      superviseIntervalSeconds: config.jobs.superviseSeconds,
      instanceName: `tagport ${config.roles.join(',')}`,
      onError,
    },
  );
  const webhooks = new WebhookService({ database, outbound, jobs }, config.webhooks);
  const events = new EventLog({ database, webhooks });
  const mailer = new Mailer({ ...config.mail, onError });
  const shared: Shared = { database, config, invalidations, jobs, outbound, events, mailer, onError, log };

  const accounts = buildAccounts(shared, createLimiter);
  const hosting = buildHosting(shared, { tenants: accounts.tenants });
  const trackingChecker = new TrackingCheckerService(
    { database, events, tenants: accounts.tenants, jobs },
    { scanTimeoutMs: config.scanner.scanTimeoutMs, syncWaitMs: config.scanner.syncWaitMs },
  );
  const scanWorker = new ScanWorker({ database, scanner, events }, { log });
  const monitoring = buildMonitoring(shared, {
    scanner,
    tenants: accounts.tenants,
    containers: hosting.containers,
    domains: hosting.domains,
    queues: () => queueFigures(jobs, jobDefinitions),
    workersRunning: runsJobs,
  });
  const { gateway, taggingServers } = hosting;
  monitoring.status.register('Gateway', async () =>
    gateway.listening
      ? { status: 'operational', detail: 'Accepting container traffic.' }
      : { status: 'degraded', detail: 'The gateway is not listening in this instance.' },
  );
  if (!taggingServers.hosting.unavailable)
    monitoring.status.register('Tagging servers', () => taggingServers.hosting.reachability());
  const reports = new ReportService({ database, events, jobs });
  const retention = new RetentionService(
    { monitors: monitoring.monitors, events, traffic: hosting.traffic, metaPixels: hosting.metaPixels },
    {
      ...config.retention,
      checkDays: config.monitoring.retentionDays,
      metaDeliveryDays: config.meta.deliveryRetentionDays,
    },
  );
  const jobDefinitions: JobDefinition[] = [
    ...webhookJobs(webhooks, config.webhooks),
    ...hosting.jobDefinitions,
    ...scanJobs(scanWorker, trackingChecker, config.scanner),
    ...monitoring.jobDefinitions,
    ...reportJobs(reports),
    ...retentionJobs(retention, config.retention),
  ];
  registerJobs(jobs, jobDefinitions);

  let gatewayListening = () => gateway.listening;
  const { auth, deprecatedCalls } = accounts;
  const { taggingSupervisor, gatewayTls, nativeGateway, runtime, requestPowerups, outgoing, containerWorker } = hosting;
  return {
    invalidations,
    jobs,
    ...accounts,
    scanner,
    trackingChecker,
    outbound,
    webhooks,
    monitors: monitoring.monitors,
    trackingMonitors: monitoring.trackingMonitors,
    trackingRuns: monitoring.trackingRuns,
    monitorChecks: monitoring.monitorChecks,
    status: monitoring.status,
    statusIncidents: monitoring.statusIncidents,
    statusSubscriptions: monitoring.statusSubscriptions,
    notifications: monitoring.notifications,
    retention,
    overview: new OverviewService({ database, tenants: accounts.tenants, trackingChecker }),
    reports,
    events,
    containers: hosting.containers,
    containerWorker,
    domains: hosting.domains,
    certificates: hosting.certificates,
    metaPixels: hosting.metaPixels,
    outgoingLog: hosting.outgoingLog,
    requestPowerups,
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
