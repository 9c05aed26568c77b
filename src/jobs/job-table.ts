import type { Db as BossDb } from 'pg-boss';
import { JOB_SCHEMA } from '../db/job-store.js';

/** Jobs that have not finished, by state: what `idle()`, the watchdog and the queue figures read. */
const UNFINISHED = ['created', 'retry', 'active'];

export interface QueueBacklog {
  name: string;
  waiting: number;
  running: number;
  oldestWaitSeconds: number;
}

/** Jobs of these queues that have not finished (waiting, retrying or running). */
export async function countUnfinished(db: BossDb, names: string[]): Promise<number> {
  const { rows } = await db.executeSql(
    `select count(*)::int as count from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[])`,
    [names, UNFINISHED],
  );
  return rows[0].count as number;
}

/** Which of these queues hold a job that has not finished. */
export async function queuesWithUnfinished(db: BossDb, names: string[]): Promise<Set<string>> {
  const { rows } = await db.executeSql(
    `select distinct name from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[])`,
    [names, UNFINISHED],
  );
  return new Set((rows as Array<{ name: string }>).map((row) => row.name));
}

/** Waiting jobs (ready to run) and the wait of the oldest, per queue: the figures on the status page. */
export async function queueBacklog(db: BossDb, names: string[]): Promise<QueueBacklog[]> {
  const { rows } = await db.executeSql(
    `select name,
            count(*) filter (where state::text in ('created', 'retry') and start_after <= now())::int as waiting,
            count(*) filter (where state::text = 'active')::int as running,
            coalesce(extract(epoch from now() - min(start_after) filter (where state::text in ('created', 'retry') and start_after <= now())), 0)::float as wait
       from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[]) group by name`,
    [names, UNFINISHED],
  );
  type Row = { name: string; waiting: number; running: number; wait: number };
  const byName = new Map((rows as Row[]).map((row) => [row.name, row]));
  return names.map((name) => {
    const row = byName.get(name);
    return {
      name,
      waiting: row?.waiting ?? 0,
      running: row?.running ?? 0,
      oldestWaitSeconds: Math.round((row?.wait ?? 0) * 10) / 10,
    };
  });
}

/**
 * The database's clock (pg-boss's, which decides when a deferred job may run) minus this process's, in ms, from the
 * best of three readings. Each reading is taken as made at the end of its round trip, so the figure errs low: a
 * wake-up then comes a little late, never before the job may run.
 */
export async function databaseClockOffset(db: BossDb): Promise<number> {
  let offset = Number.NEGATIVE_INFINITY;
  for (let reading = 0; reading < 3; reading++) {
    const { rows } = await db.executeSql(`select (extract(epoch from ${JOB_SCHEMA}.job_now()) * 1000)::float8 as now`);
    offset = Math.max(offset, Number(rows[0].now) - Date.now());
  }
  return offset;
}
