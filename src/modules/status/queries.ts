import { and, asc, desc, eq, gt, gte, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import {
  maintenanceWindows,
  platformIncidents,
  platformIncidentUpdates,
  platformOperators,
  statusCheckDays,
  statusComponents,
  statusSubscriptions,
} from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { ComponentState, UPDATE_STATUSES } from './schemas.js';

export type PlatformIncidentRow = typeof platformIncidents.$inferSelect;
export type IncidentUpdateRow = typeof platformIncidentUpdates.$inferSelect;
export type MaintenanceRow = typeof maintenanceWindows.$inferSelect;
export type SubscriptionRow = typeof statusSubscriptions.$inferSelect;
export type CheckDayRow = typeof statusCheckDays.$inferSelect;
export type UpdateStatus = (typeof UPDATE_STATUSES)[number];

/** How far back the page looks: the uptime bars, the incident history and past maintenance. */
export const HISTORY_DAYS = 90;
const SINCE = sql`now() - make_interval(days => ${HISTORY_DAYS})`;

export async function countChecks(db: Db, day: string, results: Array<{ component: string; failed: boolean }>) {
  if (results.length === 0) return;
  await db
    .insert(statusCheckDays)
    .values(results.map(({ component, failed }) => ({ component, day, checks: 1, failures: failed ? 1 : 0 })))
    .onConflictDoUpdate({
      target: [statusCheckDays.component, statusCheckDays.day],
      set: {
        checks: sql`${statusCheckDays.checks} + excluded.checks`,
        failures: sql`${statusCheckDays.failures} + excluded.failures`,
      },
    });
}

/** Records what the status checks found, replacing what they found before. */
export async function saveComponents(db: Db, results: Array<{ name: string; status: ComponentState; detail: string }>) {
  if (results.length === 0) return;
  await db
    .insert(statusComponents)
    .values(results.map(({ name, status, detail }) => ({ component: name, status, detail, checkedAt: sql`now()` })))
    .onConflictDoUpdate({
      target: statusComponents.component,
      set: { status: sql`excluded.status`, detail: sql`excluded.detail`, checkedAt: sql`excluded.checked_at` },
    });
}

/** What the status checks found within the last `freshForMs`, by component. */
export async function freshComponents(db: Db, freshForMs: number) {
  return db
    .select()
    .from(statusComponents)
    .where(sql`${statusComponents.checkedAt} >= now() - make_interval(secs => ${freshForMs / 1000})`);
}

export async function checkDays(db: Db, fromDay: string): Promise<CheckDayRow[]> {
  return db.select().from(statusCheckDays).where(gte(statusCheckDays.day, fromDay));
}

/** Opens the automatic incident of a component unless one is open; the new row, or null. */
export async function openAutomaticIncident(db: Db, component: string, title: string, message: string) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(platformIncidents)
      .values({ id: newId('platformIncident'), component, title, status: 'open', source: 'automatic' })
      .onConflictDoNothing()
      .returning();
    if (!row) return null;
    await tx.insert(platformIncidentUpdates).values({
      id: newId('platformIncidentUpdate'),
      incidentId: row.id,
      status: 'investigating',
      message,
    });
    return row;
  });
}

/** Resolves the open automatic incident of a component; the resolved row, or null when none was open. */
export async function resolveAutomaticIncident(db: Db, component: string, message: string) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(platformIncidents)
      .set({ status: 'resolved', resolvedAt: sql`now()` })
      .where(
        and(
          eq(platformIncidents.component, component),
          eq(platformIncidents.source, 'automatic'),
          isNull(platformIncidents.resolvedAt),
        ),
      )
      .returning();
    if (!row) return null;
    await tx
      .insert(platformIncidentUpdates)
      .values({ id: newId('platformIncidentUpdate'), incidentId: row.id, status: 'resolved', message });
    return row;
  });
}

export async function insertOperatorIncident(
  db: Db,
  incident: { component: string; title: string },
  update: { status: UpdateStatus; message: string },
) {
  return db.transaction(async (tx) => {
    const resolved = update.status === 'resolved';
    const [row] = await tx
      .insert(platformIncidents)
      .values({
        id: newId('platformIncident'),
        ...incident,
        status: resolved ? 'resolved' : 'open',
        source: 'operator',
        resolvedAt: resolved ? sql`now()` : null,
      })
      .returning();
    await tx
      .insert(platformIncidentUpdates)
      .values({ id: newId('platformIncidentUpdate'), incidentId: row.id, ...update });
    return row;
  });
}

/** Adds an update to an open incident; a `resolved` update resolves it. Null when the incident is not open. */
export async function addIncidentUpdate(db: Db, incidentId: string, update: { status: UpdateStatus; message: string }) {
  return db.transaction(async (tx) => {
    const [open] = await tx
      .select()
      .from(platformIncidents)
      .where(and(eq(platformIncidents.id, incidentId), isNull(platformIncidents.resolvedAt)))
      .for('update');
    if (!open) return null;
    await tx.insert(platformIncidentUpdates).values({ id: newId('platformIncidentUpdate'), incidentId, ...update });
    if (update.status !== 'resolved') return open;
    const [resolved] = await tx
      .update(platformIncidents)
      .set({ status: 'resolved', resolvedAt: sql`now()` })
      .where(eq(platformIncidents.id, incidentId))
      .returning();
    return resolved;
  });
}

export async function findIncident(db: Db, id: string) {
  const [row] = await db.select().from(platformIncidents).where(eq(platformIncidents.id, id));
  return row ?? null;
}

/** Open incidents and those opened in the history window, newest first. */
export async function recentIncidents(db: Db): Promise<PlatformIncidentRow[]> {
  return db
    .select()
    .from(platformIncidents)
    .where(or(isNull(platformIncidents.resolvedAt), gt(platformIncidents.openedAt, SINCE)))
    .orderBy(desc(platformIncidents.openedAt))
    .limit(100);
}

export async function updatesOf(db: Db, incidentIds: string[]): Promise<IncidentUpdateRow[]> {
  if (incidentIds.length === 0) return [];
  return db
    .select()
    .from(platformIncidentUpdates)
    .where(inArray(platformIncidentUpdates.incidentId, incidentIds))
    .orderBy(desc(platformIncidentUpdates.createdAt), desc(platformIncidentUpdates.id));
}

export async function insertMaintenance(db: Db, values: Omit<typeof maintenanceWindows.$inferInsert, 'id'>) {
  const [row] = await db
    .insert(maintenanceWindows)
    .values({ id: newId('maintenance'), ...values })
    .returning();
  return row;
}

export async function cancelMaintenance(db: Db, id: string) {
  const [row] = await db
    .update(maintenanceWindows)
    .set({ cancelledAt: sql`now()` })
    .where(and(eq(maintenanceWindows.id, id), isNull(maintenanceWindows.cancelledAt)))
    .returning();
  return row ?? null;
}

/** Windows not cancelled that end in the future or ended within the history window, soonest first. */
export async function maintenanceToShow(db: Db): Promise<MaintenanceRow[]> {
  return db
    .select()
    .from(maintenanceWindows)
    .where(and(isNull(maintenanceWindows.cancelledAt), gt(maintenanceWindows.endsAt, SINCE)))
    .orderBy(asc(maintenanceWindows.startsAt))
    .limit(100);
}

export async function isOperator(db: Db, tenantId: string): Promise<boolean> {
  const rows = await db
    .select({ tenantId: platformOperators.tenantId })
    .from(platformOperators)
    .where(eq(platformOperators.tenantId, tenantId));
  return rows.length > 0;
}

export async function addOperator(db: Db, tenantId: string) {
  await db.insert(platformOperators).values({ tenantId }).onConflictDoNothing();
}

/** A subscription by kind and target; an existing one keeps its id and unsubscribe token (links already sent). */
/** A repeat subscription of a pending address within this re-uses the link already mailed: no new mail. */
export const CONFIRMATION_COOL_DOWN_MINUTES = 10;
/** At most this many confirmation mails go to one address in a day, however often it is subscribed. */
export const CONFIRMATIONS_PER_DAY = 3;

const confirmationWindowOpen = sql`${statusSubscriptions.confirmationsSince} >= now() - interval '1 day'`;

/**
 * Gives the pending email subscription of `email` (made if missing) a new confirmation token when a mail may go out:
 * none within the cool-down and fewer than the day's cap. The row to mail, or null: nothing to send (confirmed
 * already, cooling down, or capped). The update's condition is checked under the row's lock, so concurrent requests
 * on any instance send one mail.
 */
export async function claimConfirmationMail(
  db: Db,
  values: { email: string; confirmTokenHash: string; unsubscribeToken: string },
): Promise<SubscriptionRow | null> {
  await db
    .insert(statusSubscriptions)
    .values({
      id: newId('statusSubscription'),
      kind: 'email',
      target: values.email,
      confirmTokenHash: null,
      unsubscribeToken: values.unsubscribeToken,
    })
    .onConflictDoNothing();
  const [row] = await db
    .update(statusSubscriptions)
    .set({
      confirmTokenHash: values.confirmTokenHash,
      confirmationSentAt: sql`now()`,
      confirmationsSent: sql`case when ${confirmationWindowOpen} then ${statusSubscriptions.confirmationsSent} + 1 else 1 end`,
      confirmationsSince: sql`case when ${confirmationWindowOpen} then ${statusSubscriptions.confirmationsSince} else now() end`,
    })
    .where(
      and(
        eq(statusSubscriptions.kind, 'email'),
        eq(statusSubscriptions.target, values.email),
        isNull(statusSubscriptions.confirmedAt),
        sql`(${statusSubscriptions.confirmationSentAt} is null or ${statusSubscriptions.confirmationSentAt} < now() - make_interval(mins => ${CONFIRMATION_COOL_DOWN_MINUTES}))`,
        sql`(${statusSubscriptions.confirmationsSince} is null or not (${confirmationWindowOpen}) or ${statusSubscriptions.confirmationsSent} < ${CONFIRMATIONS_PER_DAY})`,
      ),
    )
    .returning();
  return row ?? null;
}

/** The hostname of a stored webhook URL (a normalised href): no userinfo, no port. */
const webhookHostname = sql`lower(regexp_replace(split_part(split_part(${statusSubscriptions.target}, '://', 2), '/', 1), '^.*@|:[0-9]+$', '', 'g'))`;

/**
 * Subscribes a webhook URL unless its hostname has `cap` webhook subscriptions already: the existing row for the same
 * URL (re-used), the new row, or null when the cap is reached. Serialised per hostname across instances.
 */
export async function insertWebhookUnderCap(
  db: Db,
  values: { url: URL; unsubscribeToken: string; cap: number },
): Promise<SubscriptionRow | null> {
  const target = values.url.href;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`status-webhook:${values.url.hostname}`}))`);
    const [existing] = await tx
      .select()
      .from(statusSubscriptions)
      .where(and(eq(statusSubscriptions.kind, 'webhook'), eq(statusSubscriptions.target, target)));
    if (existing) return existing;
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(statusSubscriptions)
      .where(and(eq(statusSubscriptions.kind, 'webhook'), sql`${webhookHostname} = ${values.url.hostname}`));
    if (count >= values.cap) return null;
    const [row] = await tx
      .insert(statusSubscriptions)
      .values({
        id: newId('statusSubscription'),
        kind: 'webhook',
        target,
        confirmTokenHash: null,
        unsubscribeToken: values.unsubscribeToken,
        confirmedAt: sql`now()`,
      })
      .returning();
    return row;
  });
}

export async function confirmSubscription(db: Db, confirmTokenHash: string) {
  const [row] = await db
    .update(statusSubscriptions)
    .set({ confirmedAt: sql`coalesce(${statusSubscriptions.confirmedAt}, now())`, confirmTokenHash: null })
    .where(eq(statusSubscriptions.confirmTokenHash, confirmTokenHash))
    .returning();
  return row ?? null;
}

export async function deleteSubscription(db: Db, unsubscribeToken: string) {
  const [row] = await db
    .delete(statusSubscriptions)
    .where(eq(statusSubscriptions.unsubscribeToken, unsubscribeToken))
    .returning();
  return row ?? null;
}

export async function confirmedSubscriptionIds(db: Db): Promise<string[]> {
  const rows = await db
    .select({ id: statusSubscriptions.id })
    .from(statusSubscriptions)
    .where(sql`${statusSubscriptions.confirmedAt} is not null`);
  return rows.map((row) => row.id);
}

export async function findSubscription(db: Db, id: string) {
  const [row] = await db.select().from(statusSubscriptions).where(eq(statusSubscriptions.id, id));
  return row ?? null;
}
