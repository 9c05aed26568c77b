import { newId } from '../lib/ids.js';
import type { RequestLogEntry, UsageCount } from '../modules/containers/traffic.js';
import { UtcDay } from '../lib/utc-day.js';

/** The newest sampled logs kept per container: what one flush writes at most (older ones would be trimmed). */
export const KEPT_LOGS_PER_CONTAINER = 1000;

interface UsageCounter {
  requests: number;
  requestBytes: number;
  responseBytes: number;
}

/** A sampled request as the hot path keeps it: its id and date are made at flush, only for the logs kept. */
export type SampledLog = Omit<RequestLogEntry, 'id' | 'at'> & { at: number };

/** What one flush takes out of the meter; `restore` puts the usage back when it could not be written. */
export interface MeterBatch {
  usage: UsageCount[];
  logs: RequestLogEntry[];
  /** The containers that got new logs (their older logs are trimmed after the write). */
  containers: string[];
  restore(): void;
}

/**
 * The gateway's in-memory metering between flushes: usage per container, UTC day, hostname and status class, and
 * the newest sampled logs of each container in a ring. Counting a request allocates nothing but its key.
 */
export class GatewayMeter {
  private readonly day = new UtcDay();
  private usage = new Map<string, UsageCounter>();
  private logs = new Map<string, { entries: SampledLog[]; next: number }>();

  count(containerId: string, hostname: string, status: number, requestBytes: number, responseBytes: number): void {
    this.add(
      `${containerId}|${this.day.today}|${hostname}|${Math.floor(status / 100)}xx`,
      1,
      requestBytes,
      responseBytes,
    );
  }

  /** Keeps a sampled log, overwriting the oldest one of its container once the ring is full. */
  sample(log: SampledLog): void {
    let ring = this.logs.get(log.containerId);
    if (!ring) {
      ring = { entries: [], next: 0 };
      this.logs.set(log.containerId, ring);
    }
    if (ring.entries.length < KEPT_LOGS_PER_CONTAINER) ring.entries.push(log);
    else {
      ring.entries[ring.next] = log;
      ring.next = (ring.next + 1) % KEPT_LOGS_PER_CONTAINER;
    }
  }

  take(): MeterBatch {
    const counters = this.usage;
    const rings = this.logs;
    this.usage = new Map();
    this.logs = new Map();
    return {
      usage: [...counters].map(([key, counter]) => {
        const [containerId, day, hostname, statusClass] = key.split('|');
        return { containerId, day, hostname, statusClass, ...counter };
      }),
      logs: [...rings.values()].flatMap((ring) => ring.entries.map(toLogEntry)),
      containers: [...rings.keys()],
      restore: () => {
        for (const [key, counter] of counters)
          this.add(key, counter.requests, counter.requestBytes, counter.responseBytes);
      },
    };
  }

  private add(key: string, requests: number, requestBytes: number, responseBytes: number) {
    const counter = this.usage.get(key);
    if (!counter) return void this.usage.set(key, { requests, requestBytes, responseBytes });
    counter.requests += requests;
    counter.requestBytes += requestBytes;
    counter.responseBytes += responseBytes;
  }
}

const toLogEntry = (log: SampledLog): RequestLogEntry => ({ ...log, id: newId('requestLog'), at: new Date(log.at) });
