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

  /** The counter counted last: a hit counts several metrics of one container in a row. */
  private last: { containerId: string; day: string; counter: Required<RuntimeCounter> } | null = null;

  count(containerId: string, metric: RuntimeMetric, amount = 1): void {
    const day = this.day.today;
    const last = this.last;
    if (last && last.containerId === containerId && last.day === day) {
      last.counter[metric] += amount;
      return;
    }
    const key = `${containerId}|${day}`;
    let counter = this.counters.get(key);
    if (!counter) {
      counter = { ...EMPTY };
      this.counters.set(key, counter);
    }
    this.last = { containerId, day, counter };
    counter[metric] += amount;
  }

  /** The counts so far, and a fresh meter; `restore` puts them back when writing failed. */
  take(): RuntimeUsageCount[] {
    const counters = this.counters;
    this.counters = new Map();
    this.last = null;
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
