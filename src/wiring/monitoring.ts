import type { JobDefinition } from '../jobs/definitions.js';
import { userSecretsBox } from '../lib/secrets.js';
import type { ContainerService } from '../modules/containers/service.js';
import type { DomainService } from '../modules/domains/service.js';
import { MonitorChecks } from '../modules/monitors/checks.js';
import { dispatchLookaheadMs, monitoringLag, monitorJobs } from '../modules/monitors/jobs.js';
import { MonitorService } from '../modules/monitors/service.js';
import { notificationJobs } from '../modules/notifications/jobs.js';
import { NotificationService } from '../modules/notifications/service.js';
import { NotificationWorker } from '../modules/notifications/worker.js';
import { StatusIncidents } from '../modules/status/incidents.js';
import { statusJobs } from '../modules/status/jobs.js';
import { StatusService, type QueueFigures } from '../modules/status/service.js';
import { StatusSubscriptions } from '../modules/status/subscriptions.js';
import type { TenantService } from '../modules/tenants/service.js';
import { trackingLookaheadMs, trackingMonitorJobs } from '../modules/tracking-monitors/jobs.js';
import { TrackingRuns } from '../modules/tracking-monitors/runs.js';
import { TrackingMonitorService } from '../modules/tracking-monitors/service.js';
import type { Scanner } from '../scanner/index.js';
import type { Shared } from './shared.js';

/**
 * Monitors and their checks, tracking monitors and their runs, the status page with its subscribers, and the alerts
 * sent to notification channels.
 */
export function buildMonitoring(
  { database, config, jobs, outbound, events, mailer, onError, log }: Shared,
  dependencies: {
    scanner: Pick<Scanner, 'scan'>;
    tenants: TenantService;
    containers: ContainerService;
    domains: DomainService;
    /** The job queues' backlog for the status page. */
    queues: QueueFigures;
    /** Whether this process runs background jobs (the status page says when none does). */
    workersRunning: boolean;
  },
) {
  const dashboardUrl = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  const monitorChecks = new MonitorChecks(
    { database, outbound, events, jobs },
    { lookaheadMs: dispatchLookaheadMs(config.jobs.pollMs), batchSize: 1000 },
  );
  const statusSubscriptions = new StatusSubscriptions(
    { database, jobs, mailer, outbound },
    { baseUrl: dashboardUrl, webhookTimeoutMs: config.webhooks.timeoutMs },
  );
  const statusIncidents = new StatusIncidents({ database, subscriptions: statusSubscriptions });
  const status = new StatusService(
    {
      database,
      monitoringLag: () => monitoringLag(jobs, monitorChecks),
      queues: dependencies.queues,
      incidents: statusIncidents,
    },
    {
      failuresToOpen: config.statusFailuresToOpen,
      chromiumPath: config.scanner.chromiumPath,
      workersRunning: dependencies.workersRunning,
      checkIntervalMs: config.statusCheckMs,
      onError,
    },
  );
  const notifications = new NotificationService(
    { database, outbound, box: userSecretsBox(config), jobs },
    { dashboardUrl },
  );
  events.onRecord((event) => notifications.notify(event));
  const notificationWorker = new NotificationWorker({ database, outbound, mailer, notifications }, config.webhooks);
  const { tenants, containers, domains } = dependencies;
  const monitors = new MonitorService({
    database,
    outbound,
    events,
    tenants,
    containers,
    domains,
    channels: notifications,
  });
  const trackingRuns = new TrackingRuns(
    { database, scanner: dependencies.scanner, events, jobs },
    { lookaheadMs: trackingLookaheadMs(config.jobs.pollMs), batchSize: 100, log },
  );
  const trackingMonitors = new TrackingMonitorService({
    database,
    tenants,
    containers,
    channels: notifications,
    runs: trackingRuns,
  });
  const jobDefinitions: JobDefinition[] = [
    ...monitorJobs(monitorChecks, config.monitoring),
    ...trackingMonitorJobs(trackingRuns, { concurrency: config.monitoring.trackingConcurrency }),
    ...statusJobs(status, statusSubscriptions, { checkIntervalMs: config.statusCheckMs }),
    ...notificationJobs(notificationWorker, config.webhooks),
  ];
  return {
    monitorChecks,
    monitors,
    trackingMonitors,
    trackingRuns,
    status,
    statusIncidents,
    statusSubscriptions,
    notifications,
    jobDefinitions,
  };
}
