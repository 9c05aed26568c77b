import { UtcDay } from '../../lib/utc-day.js';
import type { RuntimeUsageCount } from '../../modules/containers/traffic.js';

export type RuntimeCounter = Omit<RuntimeUsageCount, 'containerId' | 'day'>;
export type RuntimeMetric = keyof RuntimeCounter;

const EMPTY: Required<RuntimeCounter> = {
  hitsReceived: 0,
  ga4Forwarded: 0,
  metaForwarded: 0,
  forwardsFailed: 0,
  hitsRefused: 0,
  botsDropped: 0,
  cookiesRestored: 0,
};

/** What the built-in runtime did, per container and UTC day, counted in memory until the gateway flushes. */
export class RuntimeMeter {
  private counters = new Map<string, Required<RuntimeCounter>>();
  private readonly day = new UtcDay();

  count(containerId: string, metric: RuntimeMetric, amount = 1): void {
    const key = `${containerId}|${this.day.today}`;
    let counter = this.counters.get(key);
    if (!counter) {
      counter = { ...EMPTY };
      this.counters.set(key, counter);
    }
    counter[metric] += amount;
  }

  /** The counts so far, and a fresh meter; `restore` puts them back when writing failed. */
  take(): RuntimeUsageCount[] {
    const counters = this.counters;
    this.counters = new Map();
    return [...counters].map(([key, counter]) => {
      const [containerId, day] = key.split('|');
      return { containerId, day, ...counter };
    });
  }

  restore(rows: RuntimeUsageCount[]): void {
    for (const { containerId, day, ...counter } of rows) {
      const key = `${containerId}|${day}`;
      const current = this.counters.get(key) ?? { ...EMPTY };
      for (const metric of Object.keys(EMPTY) as RuntimeMetric[]) current[metric] += counter[metric] ?? 0;
      this.counters.set(key, current);
    }
  }
}
