import type { Db } from '../../db/index.js';
import * as queries from './queries.js';

/** Lines kept per container; older ones are deleted at each flush. */
export const LOG_LINES_KEPT = 1_000;
/** Lines held between flushes at most; a replica printing faster loses its oldest unflushed lines. */
const MAX_BUFFERED_LINES = 10_000;

/**
 * Replicas' output on its way to `tagging_server_logs`: buffered and written in one insert per flush (about once a
 * second), then trimmed to the newest LOG_LINES_KEPT lines of each container written to.
 */
export class LogSink {
  private buffer: queries.NewLogLine[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly settings: { flushIntervalMs: number; onError: (error: unknown) => void },
  ) {}

  push(containerId: string, replica: string, stream: 'stdout' | 'stderr', line: string): void {
    this.buffer.push({ containerId, replica, stream, line, at: new Date() });
    if (this.buffer.length > MAX_BUFFERED_LINES) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED_LINES);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.settings.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes what is buffered; resolves once written (or reported lost). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer.splice(0);
    this.flushing = this.flushing.then(() => this.write(lines));
    return this.flushing;
  }

  /** A batch that fails is dropped and reported: retrying it could fail forever (a container deleted meanwhile). */
  private async write(lines: queries.NewLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    try {
      await queries.insertLogs(this.db, lines);
      for (const containerId of new Set(lines.map((line) => line.containerId)))
        await queries.trimLogs(this.db, containerId, LOG_LINES_KEPT);
    } catch (error) {
      this.settings.onError(error);
    }
  }
}
