import type { Database } from '../../db/index.js';
import * as queries from './queries.js';
import type { DeprecatedCallDto } from './schemas.js';

/** How far back the dashboard looks for calls of deprecated operations. */
export const DEPRECATED_CALL_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface DeprecatedCall {
  apiKeyId: string;
  /** The tenant that owns the key. */
  tenantId: string;
  operationId: string;
  /** The deprecation's sunset date (YYYY-MM-DD) and changelog entry. */
  sunset: string;
  changelog: string;
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * Counts the calls API keys make to deprecated operations (src/http/deprecations.ts records them). A call only
 * updates a counter in memory; the counters per key, UTC day and operation are added to `deprecated_calls` in one
 * statement every flush, so a deprecated operation costs no write per request.
 */
export class DeprecatedCallLog {
  private readonly database: Database;
  private pending = new Map<string, queries.DeprecatedCallCount>();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    { database }: { database: Database },
    private readonly settings: { flushMs: number },
  ) {
    this.database = database;
  }

  record(call: DeprecatedCall, at = new Date()): void {
    const day = utcDay(at);
    const key = `${call.apiKeyId}|${day}|${call.operationId}`;
    const counted = this.pending.get(key);
    if (counted) {
      counted.calls += 1;
      counted.lastCalledAt = at;
    } else this.pending.set(key, { ...call, day, calls: 1, lastCalledAt: at });
  }

  start(): void {
    this.flushTimer = setInterval(() => void this.flush().catch(() => {}), this.settings.flushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flush();
  }

  /** Adds the counted calls to the table and forgets the days past the window. */
  async flush(now = new Date()): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await queries.addDeprecatedCalls(this.database.db, batch);
    } catch (error) {
      for (const counted of batch) this.record(counted, counted.lastCalledAt);
      throw error;
    }
    await queries.deleteDeprecatedCallsBefore(this.database.db, windowStart(now));
  }

  /** Per key: the deprecated operations it called in the last DEPRECATED_CALL_WINDOW_DAYS days, counted so far. */
  async recent(apiKeyIds: string[], now = new Date()): Promise<Map<string, DeprecatedCallDto[]>> {
    const byKey = new Map<string, DeprecatedCallDto[]>();
    if (apiKeyIds.length === 0) return byKey;
    const rows = await queries.recentDeprecatedCalls(this.database.db, apiKeyIds, windowStart(now));
    for (const row of rows) {
      const calls = byKey.get(row.apiKeyId) ?? [];
      calls.push({
        operation_id: row.operationId,
        calls: row.calls,
        last_called_at: row.lastCalledAt.toISOString(),
        sunset: row.sunset,
        changelog: row.changelog,
      });
      byKey.set(row.apiKeyId, calls);
    }
    return byKey;
  }
}

/** The first UTC day of the window ending today. */
const windowStart = (now: Date) => utcDay(new Date(now.getTime() - (DEPRECATED_CALL_WINDOW_DAYS - 1) * DAY_MS));
