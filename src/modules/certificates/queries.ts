import { and, eq, inArray, isNull, like, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import {
  acmeAccounts,
  acmeChallenges,
  domainCertificates,
  domains,
  type DomainCertificateRow,
} from '../../db/schema.js';
import type { RenewalSource } from './schemas.js';

type Db = Database['db'];
const liveActiveDomain = and(eq(domains.status, 'active'), isNull(domains.deletedAt));

/** Active domains without a certificate row get one, pending: the worker orders their certificate next. */
export async function queueActiveDomains(db: Db): Promise<void> {
  await db
    .insert(domainCertificates)
    .select(
      db
        .select({
          domainId: domains.id,
          hostname: domains.hostname,
          status: sql<string>`'pending'`.as('status'),
          issuer: sql<null>`null`.as('issuer'),
          notBefore: sql<null>`null`.as('not_before'),
          notAfter: sql<null>`null`.as('not_after'),
          certificatePem: sql<null>`null`.as('certificate_pem'),
          privateKeySealed: sql<null>`null`.as('private_key_sealed'),
          lastError: sql<null>`null`.as('last_error'),
          attempts: sql<number>`0`.as('attempts'),
          nextAttemptAt: sql<Date>`now()`.as('next_attempt_at'),
          lockedUntil: sql<null>`null`.as('locked_until'),
          expiryWarningAt: sql<null>`null`.as('expiry_warning_at'),
          expiryAlertedAt: sql<null>`null`.as('expiry_alerted_at'),
          renewalSource: sql<null>`null`.as('renewal_source'),
          renewalExplanationUrl: sql<null>`null`.as('renewal_explanation_url'),
          renewalInfoCheckAt: sql<null>`null`.as('renewal_info_check_at'),
          updatedAt: sql<Date>`now()`.as('updated_at'),
          createdAt: sql<Date>`now()`.as('created_at'),
        })
        .from(domains)
        .leftJoin(domainCertificates, eq(domainCertificates.domainId, domains.id))
        .where(and(liveActiveDomain, isNull(domainCertificates.domainId))),
    )
    .onConflictDoNothing();
}

/** Certificates of live, active domains whose next attempt is due and that no instance is working on. */
export async function findDue(db: Db, limit: number): Promise<Array<DomainCertificateRow & { tenantId: string }>> {
  const rows = await db
    .select({ certificate: domainCertificates, tenantId: domains.tenantId })
    .from(domainCertificates)
    .innerJoin(domains, eq(domains.id, domainCertificates.domainId))
    .where(
      and(
        liveActiveDomain,
        lte(domainCertificates.nextAttemptAt, sql`now()`),
        or(isNull(domainCertificates.lockedUntil), lt(domainCertificates.lockedUntil, sql`now()`)),
      ),
    )
    .orderBy(domainCertificates.nextAttemptAt)
    .limit(limit);
  return rows.map(({ certificate, tenantId }) => ({ ...certificate, tenantId }));
}

/**
 * Every certificate due before `until` waits until then: those of `registeredDomain` and its subdomains, or all of
 * them (null: a limit on the ACME account). What waits keeps its status, so the queue shows in each domain's
 * certificate (`pending`, or `renewing` while the old one is served).
 */
export async function deferDue(db: Db, registeredDomain: string | null, until: Date): Promise<void> {
  const hostname = domainCertificates.hostname;
  await db
    .update(domainCertificates)
    .set({ nextAttemptAt: until, updatedAt: sql`now()` })
    .where(
      and(
        lt(domainCertificates.nextAttemptAt, until),
        registeredDomain === null
          ? undefined
          : or(eq(hostname, registeredDomain), like(hostname, `%.${registeredDomain}`)),
      ),
    );
}

/** Takes the order for this instance until `lockMs` from now; false when another instance got it first. */
export async function lock(
  db: Db,
  domainId: string,
  lockMs: number,
  status: DomainCertificateRow['status'],
): Promise<boolean> {
  const rows = await db
    .update(domainCertificates)
    .set({ lockedUntil: sql`now() + ${`${lockMs} milliseconds`}::interval`, status, updatedAt: sql`now()` })
    .where(
      and(
        eq(domainCertificates.domainId, domainId),
        or(isNull(domainCertificates.lockedUntil), lt(domainCertificates.lockedUntil, sql`now()`)),
      ),
    )
    .returning({ domainId: domainCertificates.domainId });
  return rows.length === 1;
}

/** When and why a certificate is renewed: the CA's window (ARI) or our own rule, and when to ask the CA again. */
export interface RenewalSchedule {
  renewAt: Date;
  renewalSource: RenewalSource;
  renewalExplanationUrl: string | null;
  renewalInfoCheckAt: Date | null;
}

export async function saveIssued(
  db: Db,
  domainId: string,
  issued: {
    issuer: string;
    notBefore: Date;
    notAfter: Date;
    certificatePem: string;
    privateKeySealed: string;
    expiryWarningAt: Date;
  } & RenewalSchedule,
): Promise<void> {
  await db
    .update(domainCertificates)
    .set({
      status: 'issued',
      issuer: issued.issuer,
      notBefore: issued.notBefore,
      notAfter: issued.notAfter,
      certificatePem: issued.certificatePem,
      privateKeySealed: issued.privateKeySealed,
      lastError: null,
      attempts: 0,
      nextAttemptAt: issued.renewAt,
      lockedUntil: null,
      expiryWarningAt: issued.expiryWarningAt,
      expiryAlertedAt: null,
      renewalSource: issued.renewalSource,
      renewalExplanationUrl: issued.renewalExplanationUrl,
      renewalInfoCheckAt: issued.renewalInfoCheckAt,
      updatedAt: sql`now()`,
    })
    .where(eq(domainCertificates.domainId, domainId));
}

/** An issued certificate whose renewal window is to be asked for again. */
export type RenewalInfoRow = Pick<
  DomainCertificateRow,
  'domainId' | 'certificatePem' | 'nextAttemptAt' | 'renewalSource' | 'renewalExplanationUrl'
>;

/**
 * Claims up to `limit` served certificates (issued, not expired, no order under way) due for a renewal window check,
 * each for `leaseMs`: one UPDATE, so two instances never ask about the same certificate at once.
 */
export async function claimRenewalInfoChecks(db: Db, limit: number, leaseMs: number): Promise<RenewalInfoRow[]> {
  const due = db
    .select({ id: domainCertificates.domainId })
    .from(domainCertificates)
    .where(
      and(
        lte(domainCertificates.renewalInfoCheckAt, sql`now()`),
        eq(domainCertificates.status, 'issued'),
        sql`${domainCertificates.notAfter} > now()`,
        or(isNull(domainCertificates.lockedUntil), lt(domainCertificates.lockedUntil, sql`now()`)),
      ),
    )
    .orderBy(domainCertificates.renewalInfoCheckAt)
    .limit(limit);
  const rows = await db
    .update(domainCertificates)
    .set({ renewalInfoCheckAt: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
    .where(and(inArray(domainCertificates.domainId, due), lte(domainCertificates.renewalInfoCheckAt, sql`now()`)))
    .returning({
      domainId: domainCertificates.domainId,
      certificatePem: domainCertificates.certificatePem,
      nextAttemptAt: domainCertificates.nextAttemptAt,
      renewalSource: domainCertificates.renewalSource,
      renewalExplanationUrl: domainCertificates.renewalExplanationUrl,
    });
  return rows;
}

/**
 * Saves what a renewal window check decided, only while that same certificate is still the one served and no order
 * took it meanwhile (an order in progress, or a certificate issued since, keeps its own schedule).
 */
export async function saveRenewalSchedule(
  db: Db,
  domainId: string,
  certificatePem: string,
  schedule: RenewalSchedule,
): Promise<void> {
  await db
    .update(domainCertificates)
    .set({
      nextAttemptAt: schedule.renewAt,
      renewalSource: schedule.renewalSource,
      renewalExplanationUrl: schedule.renewalExplanationUrl,
      renewalInfoCheckAt: schedule.renewalInfoCheckAt,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(domainCertificates.domainId, domainId),
        eq(domainCertificates.status, 'issued'),
        eq(domainCertificates.certificatePem, certificatePem),
        or(isNull(domainCertificates.lockedUntil), lt(domainCertificates.lockedUntil, sql`now()`)),
      ),
    );
}

export async function saveFailure(
  db: Db,
  domainId: string,
  failure: { status: DomainCertificateRow['status']; lastError: string; attempts: number; nextAttemptAt: Date },
): Promise<void> {
  await db
    .update(domainCertificates)
    .set({ ...failure, lockedUntil: null, updatedAt: sql`now()` })
    .where(eq(domainCertificates.domainId, domainId));
}

/** A certificate near expiry, claimed for its one alert. */
export interface ExpiringRow {
  domainId: string;
  tenantId: string;
  hostname: string;
  notAfter: Date;
  lastError: string | null;
}

/**
 * Marks the certificates of live, active domains that reached their expiry warning and were not alerted yet as
 * alerted, and returns them: one UPDATE, so that each is alerted by exactly one instance.
 */
export async function claimExpiring(db: Db, limit: number): Promise<ExpiringRow[]> {
  const due = db
    .select({ id: domainCertificates.domainId })
    .from(domainCertificates)
    .innerJoin(domains, eq(domains.id, domainCertificates.domainId))
    .where(
      and(
        liveActiveDomain,
        isNull(domainCertificates.expiryAlertedAt),
        lte(domainCertificates.expiryWarningAt, sql`now()`),
      ),
    )
    .limit(limit);
  const rows = await db
    .update(domainCertificates)
    .set({ expiryAlertedAt: sql`now()` })
    .from(domains)
    .where(
      and(
        eq(domains.id, domainCertificates.domainId),
        inArray(domainCertificates.domainId, due),
        isNull(domainCertificates.expiryAlertedAt),
      ),
    )
    .returning({
      domainId: domainCertificates.domainId,
      tenantId: domains.tenantId,
      hostname: domains.hostname,
      notAfter: domainCertificates.notAfter,
      lastError: domainCertificates.lastError,
    });
  return rows.flatMap((row) => (row.notAfter ? [{ ...row, notAfter: row.notAfter }] : []));
}

export async function findByDomainIds(db: Db, domainIds: string[]): Promise<DomainCertificateRow[]> {
  if (domainIds.length === 0) return [];
  return db.select().from(domainCertificates).where(inArray(domainCertificates.domainId, domainIds));
}

/** An issued certificate as the gateway serves it, with its domain's hostname. */
export type ServedRow = Pick<DomainCertificateRow, 'certificatePem' | 'privateKeySealed' | 'domainId'> & {
  hostname: string;
};

/** Issued certificates whose domain is live and active, joined with it; `where` narrows them further. */
function selectServed(db: Db, where?: SQL) {
  return db
    .select({
      hostname: domains.hostname,
      domainId: domainCertificates.domainId,
      certificatePem: domainCertificates.certificatePem,
      privateKeySealed: domainCertificates.privateKeySealed,
    })
    .from(domainCertificates)
    .innerJoin(domains, eq(domains.id, domainCertificates.domainId))
    .where(and(liveActiveDomain, sql`${domainCertificates.certificatePem} is not null`, where));
}

/** The issued certificate served for a hostname: only while its domain is live and active. */
export async function findServedByHostname(db: Db, hostname: string): Promise<ServedRow | null> {
  const [row] = await selectServed(db, eq(domains.hostname, hostname)).limit(1);
  return row ?? null;
}

/** Every issued certificate being served (its domain live and active), with its hostname. */
export function listServed(db: Db): Promise<ServedRow[]> {
  return selectServed(db);
}

/**
 * What each served certificate is, without its key: when it was issued (a renewal changes it), by hostname. A gateway
 * compares it with what it wrote, and opens only the keys of certificates that changed.
 */
export async function listServedVersions(db: Db): Promise<Array<{ hostname: string; version: string }>> {
  const rows = await db
    .select({ hostname: domains.hostname, notBefore: domainCertificates.notBefore })
    .from(domainCertificates)
    .innerJoin(domains, eq(domains.id, domainCertificates.domainId))
    .where(and(liveActiveDomain, sql`${domainCertificates.certificatePem} is not null`));
  return rows.map((row) => ({ hostname: row.hostname, version: row.notBefore?.toISOString() ?? '' }));
}

/** Certificates (and their sealed keys) of deleted domains, and challenges left by an order that never finished. */
export async function purgeStale(db: Db, challengeTtlMs: number): Promise<void> {
  await db
    .delete(domainCertificates)
    .where(
      inArray(
        domainCertificates.domainId,
        db.select({ id: domains.id }).from(domains).where(sql`${domains.deletedAt} is not null`),
      ),
    );
  await db
    .delete(acmeChallenges)
    .where(lt(acmeChallenges.createdAt, sql`now() - ${`${challengeTtlMs} milliseconds`}::interval`));
}

export async function saveChallenge(db: Db, token: string, keyAuthorization: string, hostname: string) {
  await db
    .insert(acmeChallenges)
    .values({ token, keyAuthorization, hostname })
    .onConflictDoUpdate({ target: acmeChallenges.token, set: { keyAuthorization, hostname } });
}

export async function deleteChallenge(db: Db, token: string) {
  await db.delete(acmeChallenges).where(eq(acmeChallenges.token, token));
}

export async function findChallenge(db: Db, token: string): Promise<string | null> {
  const [row] = await db
    .select({ keyAuthorization: acmeChallenges.keyAuthorization })
    .from(acmeChallenges)
    .where(eq(acmeChallenges.token, token))
    .limit(1);
  return row?.keyAuthorization ?? null;
}

/** The sealed account key for a directory; the first instance to store one wins, the others read it. */
export async function accountKey(
  db: Db,
  directoryUrl: string,
  candidateSealed: () => Promise<string>,
): Promise<string> {
  const [existing] = await db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl)).limit(1);
  if (existing) return existing.accountKeySealed;
  await db
    .insert(acmeAccounts)
    .values({ directoryUrl, accountKeySealed: await candidateSealed() })
    .onConflictDoNothing();
  const [stored] = await db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl)).limit(1);
  return stored.accountKeySealed;
}
