import type { ContainerTraffic } from '../containers/traffic.js';
import type { EventLog } from '../events/service.js';
import type { MetaPixelService } from '../meta-pixels/service.js';
import type { MonitorService } from '../monitors/service.js';

export interface RetentionSettings {
  /** Monitor checks (the 30-day uptime figures need 30 days). */
  checkDays: number;
  eventDays: number;
  /** Sampled gateway request logs (the gateway also keeps only the newest 1,000 per container). */
  requestLogDays: number;
  /** Daily container usage; usage reports cover up to 366 days. */
  usageDays: number;
  /** Per-event records of Meta Conversions API deliveries. */
  metaDeliveryDays: number;
  batchSize: number;
  /** Statements per table and run at most; the rest waits for the next run. */
  maxBatches: number;
}

export interface PruneResult {
  checks: number;
  events: number;
  requestLogs: number;
  usage: number;
  metaDeliveries: number;
}

const DAY_MS = 86_400_000;

/**
 * Keeps the tables that grow with traffic bounded: deletes what is older than each table's retention, oldest first,
 * in batches of short statements (no long lock, no long transaction), through each table's own module.
 */
export class RetentionService {
  private readonly monitors: MonitorService;
  private readonly events: EventLog;
  private readonly traffic: ContainerTraffic;
  private readonly metaPixels: MetaPixelService;

  constructor(
    {
      monitors,
      events,
      traffic,
      metaPixels,
    }: { monitors: MonitorService; events: EventLog; traffic: ContainerTraffic; metaPixels: MetaPixelService },
    private readonly settings: RetentionSettings,
  ) {
    this.monitors = monitors;
    this.events = events;
    this.traffic = traffic;
    this.metaPixels = metaPixels;
  }

  async pruneOnce(now = new Date()): Promise<PruneResult> {
    const { batchSize, maxBatches } = this.settings;
    const batches = { batchSize, maxBatches };
    const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
    const checks = await this.monitors.pruneChecks(before(this.settings.checkDays), batches);
    const events = await this.events.prune(before(this.settings.eventDays), batches);
    const firstKeptDay = before(this.settings.usageDays).toISOString().slice(0, 10);
    const traffic = await this.traffic.prune(before(this.settings.requestLogDays), firstKeptDay, batches);
    const metaDeliveries = await this.metaPixels.pruneDeliveries(before(this.settings.metaDeliveryDays));
    return { checks, events, ...traffic, metaDeliveries };
  }
}
