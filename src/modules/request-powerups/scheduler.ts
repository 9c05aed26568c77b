import type { Database } from '../../db/index.js';
import { newId } from '../../lib/ids.js';
import { settingsFromStored } from '../containers/settings.js';
import { cronProblem, lastDueTime } from './cron.js';
import * as queries from './queries.js';
import { answerProblem, type GatewaySender, sendProblem } from './sender.js';

/** Runs kept per schedule. */
export const KEPT_RUNS = 20;
/** A due time missed by more than this (no worker ran) is skipped, not caught up late. */
const CATCH_UP_MS = 2 * 60_000;
/** A run still `running` this long after it started was abandoned (its worker stopped). */
const ABANDONED_AFTER_MS = 10 * 60_000;
/** Scheduled requests sent side by side. */
const RUNS_AT_ONCE = 20;
/** Runs of schedules since renamed or removed go after this long. */
const RUN_RETENTION_MS = 30 * 86_400_000;

type ScheduledRequest = ReturnType<typeof settingsFromStored>['schedule']['requests'][number];

/**
 * Sends containers' scheduled requests (`settings.schedule`) when due: a periodic job's step, reading the settings each
 * time, so changes apply at once. Each schedule runs at most once per due time, whatever the number of workers: a run
 * row unique per (container, schedule, due time) is written before sending, and only the worker that wrote it sends.
 */
export class Scheduler {
  constructor(private readonly deps: { database: Database; sender: GatewaySender }) {}

  /** Sends the requests due at `now` of running containers; returns how many were sent. */
  async runDue(now = new Date()): Promise<number> {
    const runs: Array<() => Promise<boolean>> = [];
    for (const container of await queries.scheduledContainers(this.deps.database.db)) {
      for (const request of settingsFromStored(container.settings).schedule.requests) {
        if (cronProblem(request.cron) !== null) continue;
        const dueAt = lastDueTime(request.cron, now);
        if (now.getTime() - dueAt.getTime() > CATCH_UP_MS) continue;
        runs.push(() => this.run(container.id, container.hostname, request, dueAt));
      }
    }
    const results: Array<PromiseSettledResult<boolean>> = [];
    for (let from = 0; from < runs.length; from += RUNS_AT_ONCE)
      results.push(...(await Promise.allSettled(runs.slice(from, from + RUNS_AT_ONCE).map((run) => run()))));
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return results.filter((result) => result.status === 'fulfilled' && result.value).length;
  }

  /** Fails runs abandoned by a worker that stopped, and removes runs kept long enough. */
  async prune(now = new Date()): Promise<void> {
    await queries.failAbandonedRuns(this.deps.database.db, new Date(now.getTime() - ABANDONED_AFTER_MS));
    await queries.deleteOldRuns(this.deps.database.db, new Date(now.getTime() - RUN_RETENTION_MS));
  }

  private async run(containerId: string, hostname: string, request: ScheduledRequest, dueAt: Date): Promise<boolean> {
    const db = this.deps.database.db;
    const id = newId('request').replace(/^req_/, 'run_');
    const started = performance.now();
    const claimed = await queries.startRun(db, {
      id,
      containerId,
      scheduleName: request.name,
      dueAt,
      status: 'running',
      startedAt: new Date(),
    });
    if (!claimed) return false;
    const headers = ['x-tagport-schedule', request.name];
    if (request.body !== null) headers.push('content-type', 'application/json');
    let outcome: { status: 'succeeded' | 'failed'; httpStatus: number | null; error: string | null };
    try {
      const answer = await this.deps.sender.send({
        hostname,
        method: request.method,
        path: request.path,
        headers,
        body: request.body,
      });
      const failed = answer.status >= 400;
      outcome = {
        status: failed ? 'failed' : 'succeeded',
        httpStatus: answer.status,
        error: failed ? answerProblem(answer) : null,
      };
    } catch (error) {
      outcome = { status: 'failed', httpStatus: null, error: sendProblem(error) };
    }
    await queries.finishRun(db, id, { ...outcome, durationMs: Math.round(performance.now() - started) });
    await queries.trimRuns(db, containerId, request.name, KEPT_RUNS);
    return true;
  }
}
