import { and, eq, inArray, lt, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { rowsOf } from '../../db/rows.js';
import { taggingServerDeployments, taggingServerLogs, taggingServerReplicas } from '../../db/schema.js';

export type DeploymentRow = typeof taggingServerDeployments.$inferSelect;
export type ReplicaRow = typeof taggingServerReplicas.$inferSelect;
export type NewLogLine = typeof taggingServerLogs.$inferInsert;

/** Replica states with a process behind them (or about to have one). */
export const LIVE_REPLICA_STATES = ['starting', 'ready', 'restarting'];

export async function findDeployment(db: Db, containerId: string): Promise<DeploymentRow | null> {
  const rows = await db
    .select()
    .from(taggingServerDeployments)
    .where(eq(taggingServerDeployments.containerId, containerId))
    .limit(1);
  return rows[0] ?? null;
}

export async function listDeployments(db: Db): Promise<DeploymentRow[]> {
  return db.select().from(taggingServerDeployments);
}

/**
 * Writes what should run for a container in one transaction: `decide` sees the current row (locked) and returns the
 * new values, with the generation it should have.
 */
export async function writeDeployment(
  db: Db,
  containerId: string,
  decide: (current: DeploymentRow | null) => Omit<typeof taggingServerDeployments.$inferInsert, 'containerId'>,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(taggingServerDeployments)
      .where(eq(taggingServerDeployments.containerId, containerId))
      .for('update');
    const values = { ...decide(current ?? null), updatedAt: sql`now()` };
    await tx
      .insert(taggingServerDeployments)
      .values({ containerId, ...values })
      .onConflictDoUpdate({ target: taggingServerDeployments.containerId, set: values });
  });
}

/** Sets the replica count; false when the container has no deployment. */
export async function setDeploymentReplicas(db: Db, containerId: string, replicas: number): Promise<boolean> {
  const rows = await db
    .update(taggingServerDeployments)
    .set({ replicas, updatedAt: sql`now()` })
    .where(eq(taggingServerDeployments.containerId, containerId))
    .returning({ containerId: taggingServerDeployments.containerId });
  return rows.length > 0;
}

/** Bumps the generation (every replica is replaced); false when the container has no deployment. */
export async function bumpGeneration(db: Db, containerId: string): Promise<boolean> {
  const rows = await db
    .update(taggingServerDeployments)
    .set({ generation: sql`${taggingServerDeployments.generation} + 1`, updatedAt: sql`now()` })
    .where(eq(taggingServerDeployments.containerId, containerId))
    .returning({ containerId: taggingServerDeployments.containerId });
  return rows.length > 0;
}

export async function deleteDeployment(db: Db, containerId: string): Promise<void> {
  await db.delete(taggingServerDeployments).where(eq(taggingServerDeployments.containerId, containerId));
}

export async function listReplicas(db: Db, containerId: string): Promise<ReplicaRow[]> {
  return db
    .select()
    .from(taggingServerReplicas)
    .where(eq(taggingServerReplicas.containerId, containerId))
    .orderBy(taggingServerReplicas.name, taggingServerReplicas.generation);
}

export async function writeReplica(db: Db, row: typeof taggingServerReplicas.$inferInsert): Promise<void> {
  const { containerId, name, generation, ...changes } = row;
  await db
    .insert(taggingServerReplicas)
    .values(row)
    .onConflictDoUpdate({
      target: [taggingServerReplicas.containerId, taggingServerReplicas.name, taggingServerReplicas.generation],
      set: { ...changes, updatedAt: sql`now()` },
    });
}

export async function deleteReplica(db: Db, containerId: string, name: string, generation: number): Promise<void> {
  await db
    .delete(taggingServerReplicas)
    .where(
      and(
        eq(taggingServerReplicas.containerId, containerId),
        eq(taggingServerReplicas.name, name),
        eq(taggingServerReplicas.generation, generation),
      ),
    );
}

/** At a supervisor's start: whatever an earlier one ran died with it. */
export async function markLiveReplicasStopped(db: Db, reason: string): Promise<void> {
  await db
    .update(taggingServerReplicas)
    .set({ state: 'stopped', address: null, reason, updatedAt: sql`now()` })
    .where(inArray(taggingServerReplicas.state, LIVE_REPLICA_STATES));
}

/** Containers that have replica rows or logs but no deployment any more (removed). */
export async function containersWithoutDeployment(db: Db): Promise<string[]> {
  const deployed = db.select({ id: taggingServerDeployments.containerId }).from(taggingServerDeployments);
  const [replicas, logs] = await Promise.all([
    db
      .selectDistinct({ id: taggingServerReplicas.containerId })
      .from(taggingServerReplicas)
      .where(notInArray(taggingServerReplicas.containerId, deployed)),
    db
      .selectDistinct({ id: taggingServerLogs.containerId })
      .from(taggingServerLogs)
      .where(notInArray(taggingServerLogs.containerId, deployed)),
  ]);
  return [...new Set([...replicas, ...logs].map((row) => row.id))];
}

/** Deletes the replica rows and logs of a removed container, unless it was deployed again meanwhile. */
export async function deleteLeftovers(db: Db, containerId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [deployed] = await tx
      .select({ id: taggingServerDeployments.containerId })
      .from(taggingServerDeployments)
      .where(eq(taggingServerDeployments.containerId, containerId));
    if (deployed) return;
    await tx.delete(taggingServerReplicas).where(eq(taggingServerReplicas.containerId, containerId));
    await tx.delete(taggingServerLogs).where(eq(taggingServerLogs.containerId, containerId));
  });
}

/**
 * Deletes rows with no process behind them that no longer matter: older generations (replaced) and names beyond the
 * desired ones (scaled down).
 */
export async function deleteStaleReplicaRows(db: Db, containerId: string, generation: number, names: string[]) {
  await db
    .delete(taggingServerReplicas)
    .where(
      and(
        eq(taggingServerReplicas.containerId, containerId),
        notInArray(taggingServerReplicas.state, LIVE_REPLICA_STATES),
        or(lt(taggingServerReplicas.generation, generation), notInArray(taggingServerReplicas.name, names)),
      ),
    );
}

/** Rows per insert statement, well under PostgreSQL's 65,535 parameters. */
const LOG_INSERT_CHUNK = 2_000;

export async function insertLogs(db: Db, lines: NewLogLine[]): Promise<void> {
  for (let start = 0; start < lines.length; start += LOG_INSERT_CHUNK)
    await db.insert(taggingServerLogs).values(lines.slice(start, start + LOG_INSERT_CHUNK));
}

/** Keeps the newest `keep` lines of a container. */
export async function trimLogs(db: Db, containerId: string, keep: number): Promise<void> {
  await db.execute(sql`
    DELETE FROM tagging_server_logs
    WHERE container_id = ${containerId}
      AND id < (SELECT id FROM tagging_server_logs WHERE container_id = ${containerId}
                ORDER BY id DESC OFFSET ${keep - 1} LIMIT 1)`);
}

export interface StoredLogLine {
  replica: string;
  stream: string;
  line: string;
  at: Date | string;
}

/** The newest `lines` lines of each replica of a container, oldest first. */
export async function recentLogs(db: Db, containerId: string, lines: number): Promise<StoredLogLine[]> {
  const result = await db.execute(sql`
    SELECT replica, stream, line, at FROM (
      SELECT id, replica, stream, line, at,
        row_number() OVER (PARTITION BY replica ORDER BY id DESC) AS newest
      FROM tagging_server_logs WHERE container_id = ${containerId}
    ) numbered
    WHERE newest <= ${lines}
    ORDER BY id`);
  return rowsOf<StoredLogLine>(result);
}
