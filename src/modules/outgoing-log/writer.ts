import { setImmediate } from 'node:timers/promises';
import type { Db } from '../../db/index.js';
import type { OutgoingRecord, OutgoingRecorder } from '../../gateway/runtime/outgoing.js';
import { newId } from '../../lib/ids.js';
import { DeliveredSampler } from './sampler.js';
import * as queries from './queries.js';

export interface OutgoingLogWriterSettings {
  /** How often buffered rows are written (about once a second). */
  flushIntervalMs: number;
  /** Rows held at most; beyond, the oldest are dropped and counted. */
  maxBuffered: number;
  /** Delivered forwards kept per container and second; failures and conversions are always kept. */
  deliveredPerSecond?: number;
  /** The sampler's clock (tests). */
  now?: () => number;
  onError: (error: unknown) => void;
  log?: { warn(object: object, message: string): void };
}

/** Rows per insert: each statement blocks a PGlite gateway for a few milliseconds. */
const INSERT_CHUNK = 250;
const DROPPED_MESSAGE = 'Outgoing log rows dropped: the database did not keep up (forwarding itself was not affected)';

/**
 * The runtime's outgoing log on its way to `outgoing_log`: `record` only buffers (the hit path never waits for the
 * database); a timer writes the buffer in chunks about once a second, one write at a time. Under heavy traffic the
 * delivered forwards of a container beyond `deliveredPerSecond` are sampled out (failures and conversions never
 * are: they are what the log is read for). While the database is slow the buffer stays bounded: the oldest rows
 * are dropped and counted (`dropped`), and reported at the next write.
 */
export class OutgoingLogWriter implements OutgoingRecorder {
  private buffer: queries.NewOutgoingLogRow[] = [];
  /** Index of the oldest row still held: dropping from the front of a full buffer must not shift it per row. */
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private droppedTotal = 0;
  private droppedUnreported = 0;
  private readonly sampler: DeliveredSampler | null;

  constructor(
    private readonly db: Db,
    private readonly settings: OutgoingLogWriterSettings,
  ) {
    this.sampler =
      settings.deliveredPerSecond === undefined
        ? null
        : new DeliveredSampler(settings.deliveredPerSecond, settings.now);
  }

  /** Rows dropped since start: the buffer was full, or a write failed. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Delivered forwards left out of the log by sampling since start (they are still counted in usage). */
  get sampledOut(): number {
    return this.sampler?.skipped ?? 0;
  }

  record(record: OutgoingRecord): void {
    if (record.status === 'delivered' && !record.conversion && this.sampler?.skip(record.containerId)) return;
    const { conversion: _conversion, ...row } = record;
    this.buffer.push({ ...row, id: newId('outgoingLog', record.at.getTime()) });
    if (this.buffer.length - this.head > this.settings.maxBuffered) {
      this.head++;
      this.drop(1);
    }
    this.schedule();
  }

  /** Writes everything buffered so far; resolves once written (or counted as dropped). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing) await this.writing;
    if (this.buffer.length === this.head) return this.reportDrops();
    this.writing = this.write().finally(() => {
      this.writing = null;
      if (this.buffer.length > this.head) this.schedule();
    });
    return this.writing;
  }

  private schedule(): void {
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => void this.flush(), this.settings.flushIntervalMs);
    this.timer.unref();
  }

  private take(): queries.NewOutgoingLogRow[] {
    const rows = this.head === 0 ? this.buffer : this.buffer.slice(this.head);
    this.buffer = [];
    this.head = 0;
    return rows;
  }

  /** A chunk that fails is dropped and counted: retrying it could fail forever (a container gone meanwhile). */
  private async write(): Promise<void> {
    const rows = this.take();
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      if (start > 0) await setImmediate();
      const chunk = rows.slice(start, start + INSERT_CHUNK);
      try {
        await queries.insertOutgoing(this.db, chunk);
      } catch (error) {
        this.drop(chunk.length);
        this.settings.onError(new Error(`${chunk.length} outgoing log rows not written.`, { cause: error }));
      }
    }
    this.reportDrops();
  }

  private drop(count: number): void {
    this.droppedTotal += count;
    this.droppedUnreported += count;
  }

  private reportDrops(): void {
    if (this.droppedUnreported === 0) return;
    this.settings.log?.warn({ dropped: this.droppedUnreported, droppedTotal: this.droppedTotal }, DROPPED_MESSAGE);
    this.droppedUnreported = 0;
  }
}
