import type { Config } from './config.js';
import type { JobEngine } from './jobs/engine.js';
import type { CertificateService } from './modules/certificates/service.js';
import type { ForwardingAlerts } from './modules/containers/forwarding-alerts.js';
import { CONTAINER_TRANSITIONS, type ContainerWorker } from './modules/containers/worker.js';
import type { DomainService } from './modules/domains/service.js';
import { MONITOR_CHECKS, MONITOR_DISPATCH, type MonitorChecks } from './modules/monitors/checks.js';
import { NOTIFICATION_DEAD_LETTERS, NOTIFICATION_DELIVERIES } from './modules/notifications/service.js';
import type { NotificationWorker } from './modules/notifications/worker.js';
import { REPORT_BUILDS, type ReportService } from './modules/reports/service.js';
import type { OutgoingLogService } from './modules/outgoing-log/service.js';
import type { RequestPowerupService } from './modules/request-powerups/service.js';
import type { RetentionService } from './modules/retention/service.js';
import type { StatusService } from './modules/status/service.js';
import { STATUS_NOTIFICATIONS, type StatusSubscriptions } from './modules/status/subscriptions.js';
import type { TrackingCheckerService } from './modules/tracking-checker/service.js';
import { ANONYMOUS_SCANS, SCANS, type ScanWorker } from './modules/tracking-checker/worker.js';
import {
  deliveryQueueOptions,
  WEBHOOK_DEAD_LETTERS,
  WEBHOOK_DELIVERIES,
  type WebhookService,
} from './modules/webhooks/service.js';

/** The background work of every module, as queues and periodic jobs of the one job engine (see src/services.ts). */

/** What the status page shows of the job queues, by what they do. */
const SHOWN_QUEUES: Record<string, string[]> = {
  scans: [SCANS, ANONYMOUS_SCANS],
  'monitor checks': [MONITOR_CHECKS],
  'webhook deliveries': [WEBHOOK_DELIVERIES],
  'notification deliveries': [NOTIFICATION_DELIVERIES],
  'container transitions': [CONTAINER_TRANSITIONS],
  'report builds': [REPORT_BUILDS],
};

export async function queueFigures(jobs: JobEngine) {
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

/** How often containers' forwarding losses flushed by the gateways are looked at for alerts. */
const FORWARDING_ALERTS_MS = 60_000;

/** How often due delayed requests and schedules are looked for (a schedule's due minute is not missed). */
const POWERUP_REQUESTS_MS = 10_000;

/** How often running `sgtm` containers are checked for tagging servers that broke down (crash loops, pulls). */
const TAGGING_SERVER_HEALTH_MS = 30_000;

/** How often due monitor checks are claimed and queued, and how often check workers look for checks come due. */
export const MONITOR_DISPATCH_MS = 1000;
const MONITOR_POLL_MS = 200;

/** How late monitor checks are: the most overdue unclaimed monitor, or the oldest check job waiting to run. */
export async function monitoringLag(jobs: JobEngine, checks: MonitorChecks): Promise<number> {
  const [queue] = await jobs.backlog([MONITOR_CHECKS]);
  return Math.max(await checks.overdueSeconds(), queue.oldestWaitSeconds);
}

/** The services whose methods the jobs run. */
export interface JobHandlers {
  webhooks: WebhookService;
  notificationWorker: NotificationWorker;
  containerWorker: ContainerWorker;
  reports: ReportService;
  scanWorker: ScanWorker;
  monitorChecks: MonitorChecks;
  statusSubscriptions: StatusSubscriptions;
  status: StatusService;
  domains: DomainService;
  certificates: CertificateService;
  trackingChecker: TrackingCheckerService;
  retention: RetentionService;
  forwardingAlerts: ForwardingAlerts;
  requestPowerups: RequestPowerupService;
  outgoingLog: OutgoingLogService;
}

/** Declares every queue with its handler and retry policy, and every periodic job. */
export function defineJobs(jobs: JobEngine, handlers: JobHandlers, config: Config): void {
  const {
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
    forwardingAlerts,
    requestPowerups,
    outgoingLog,
  } = handlers;
  jobs.define(WEBHOOK_DEAD_LETTERS, { retentionSeconds: 30 * 86_400 });
  jobs.define(WEBHOOK_DELIVERIES, deliveryQueueOptions(config.webhooks), webhooks.deliver.bind(webhooks), {
    concurrency: 4,
    batchSize: 10,
  });
  jobs.define(NOTIFICATION_DEAD_LETTERS, { retentionSeconds: 30 * 86_400 });
  jobs.define(
    NOTIFICATION_DELIVERIES,
    deliveryQueueOptions(config.webhooks, NOTIFICATION_DEAD_LETTERS),
    notificationWorker.deliver.bind(notificationWorker),
    { concurrency: 2, batchSize: 5 },
  );
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
  // Checks are short and many: a pool settles each on its own, so a target that hangs holds one slot, not a batch.
  jobs.define(
    MONITOR_CHECKS,
    { retryLimit: 1, expireInSeconds: 60, deleteAfterSeconds: 600 },
    monitorChecks.run.bind(monitorChecks),
    { concurrency: config.monitoring.concurrency, pool: { pollMs: MONITOR_POLL_MS } },
  );
  jobs.every(MONITOR_DISPATCH, MONITOR_DISPATCH_MS, () => monitorChecks.dispatch());
  jobs.define(
    STATUS_NOTIFICATIONS,
    { retryLimit: 5, retryBackoff: true, retryDelay: 10 },
    statusSubscriptions.deliver.bind(statusSubscriptions),
    { concurrency: 2, batchSize: 5 },
  );
  jobs.every('status-check', config.statusCheckMs, () => status.evaluate());
  jobs.every('domain-recheck', Math.min(config.dns.recheckIntervalMs, 60_000), () => domains.recheckDue());
  if (config.acme) jobs.every('certificate-issue', config.acme.pollMs, () => certificates.issueDue());
  // A job of its own: an order waiting on an unreachable CA (minutes of retries) must not hold the alert back.
  if (config.acme) jobs.every('certificate-expiry', config.acme.pollMs, () => certificates.alertExpiring());
  jobs.every('interrupted-scans', 60_000, () => trackingChecker.failInterruptedScans());
  jobs.every('retention', config.retention.intervalMs, () => retention.pruneOnce());
  // Kept per tenant as its plan's `outgoing_log_retention_days` says.
  jobs.every('outgoing-log-retention', config.retention.intervalMs, () => outgoingLog.prune());
  jobs.every('forwarding-alerts', FORWARDING_ALERTS_MS, () => forwardingAlerts.checkDue());
  jobs.every('tagging-server-health', TAGGING_SERVER_HEALTH_MS, () => containerWorker.failBrokenTaggingServers());
  // Request Delay and Schedule: due requests are sent through the gateway; settings are read on every run.
  jobs.every('delayed-requests', POWERUP_REQUESTS_MS, () => requestPowerups.delivery.deliverDue());
  jobs.every('schedules', POWERUP_REQUESTS_MS, () => requestPowerups.scheduler.runDue());
  jobs.every('request-powerups-retention', config.retention.intervalMs, () => requestPowerups.prune());
}
