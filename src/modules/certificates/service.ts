import type { AcmeConfig } from '../../config.js';
import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { DomainCertificateRow } from '../../db/schema.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { EventLog } from '../events/service.js';
import { AcmeIssuer, AcmeRateLimitedError, type IssuedCertificate, type RenewalInfoAnswer } from './acme.js';
import { timeInWindow } from './ari.js';
import * as queries from './queries.js';
import type { CertificateDto, CertificateStatus } from './schemas.js';

/** Longer than an order takes (acme-client gives up after ~10 polls); an instance that dies releases it then. */
const ORDER_LOCK_MS = 10 * 60_000;
/** Near expiry at the latest this long before it (see expiryWarningAt). */
const EXPIRY_WARNING_MAX_MS = 14 * 86_400_000;
const EXPIRY_ALERTS_PER_RUN = 50;
/** Certificates whose renewal window is asked for in one step, and how long a claimed check is held. */
const RENEWAL_INFO_CHECKS_PER_RUN = 50;
const RENEWAL_INFO_LEASE_MS = 10 * 60_000;
export const KEY_PURPOSE = (domainId: string) => `certificate-key:${domainId}`;
const ACCOUNT_PURPOSE = 'acme-account-key';

export interface ServedCertificate {
  certificatePem: string;
  privateKeyPem: string;
}

const NOT_REQUESTED: CertificateDto = {
  status: 'not_requested',
  issuer: null,
  not_before: null,
  not_after: null,
  last_error: null,
};

/**
 * Certificates of custom domains, ordered through ACME (HTTP-01) when a domain is active and renewed in the window the
 * CA suggests when it offers ARI (RFC 9773), else at a fraction of their lifetime (two thirds by default), failures
 * retried with exponential backoff. Private keys are sealed with
 * SECRETS_KEY before they reach the database and are opened only for the gateway's TLS listener.
 */
export class CertificateService {
  private readonly database: Database;
  private readonly events: EventLog;
  private readonly invalidations: InvalidationBus;
  private readonly issuer: AcmeIssuer | null;

  constructor(
    { database, events, invalidations }: { database: Database; events: EventLog; invalidations: InvalidationBus },
    private readonly settings: { acme: AcmeConfig | null; secrets: SecretBox | null },
  ) {
    this.database = database;
    this.events = events;
    this.invalidations = invalidations;
    const { acme, secrets } = settings;
    this.issuer =
      acme && secrets
        ? new AcmeIssuer(
            {
              directoryUrl: acme.directoryUrl,
              email: acme.email,
              caCertificates: acme.caCertificates,
              accountKeyPem: async () =>
                secrets.open(
                  await queries.accountKey(this.db, acme.directoryUrl, async () =>
                    secrets.seal(await AcmeIssuer.createAccountKey(), ACCOUNT_PURPOSE),
                  ),
                  ACCOUNT_PURPOSE,
                ),
            },
            {
              put: (token, keyAuthorization, hostname) =>
                queries.saveChallenge(this.db, token, keyAuthorization, hostname),
              remove: (token) => queries.deleteChallenge(this.db, token),
            },
          )
        : null;
  }

  private get db() {
    return this.database.db;
  }

  get enabled(): boolean {
    return this.issuer !== null;
  }

  /** The `certificate` field of each domain, by domain id. */
  async summaries(domains: Array<{ id: string; status: string }>): Promise<Map<string, CertificateDto>> {
    const rows = new Map(
      (
        await queries.findByDomainIds(
          this.db,
          domains.map((domain) => domain.id),
        )
      ).map((row) => [row.domainId, row]),
    );
    return new Map(domains.map((domain) => [domain.id, this.summary(domain, rows.get(domain.id))]));
  }

  private summary(domain: { status: string }, row: DomainCertificateRow | undefined): CertificateDto {
    if (!row)
      return this.enabled && domain.status === 'active' ? { ...NOT_REQUESTED, status: 'pending' } : NOT_REQUESTED;
    return {
      status: row.status,
      issuer: row.issuer,
      not_before: row.notBefore?.toISOString() ?? null,
      not_after: row.notAfter?.toISOString() ?? null,
      last_error: row.lastError,
    };
  }

  /** The key authorization for an HTTP-01 token, whichever instance created it. */
  challenge(token: string): Promise<string | null> {
    return queries.findChallenge(this.db, token);
  }

  /** The certificate and opened key the gateway serves for a custom domain; null when it has none. */
  async served(hostname: string): Promise<ServedCertificate | null> {
    if (!this.settings.secrets) return null;
    const row = await queries.findServedByHostname(this.db, hostname);
    return row ? this.opened(row) : null;
  }

  /** Every certificate being served, by hostname, keys opened: what a native data plane writes for nginx. */
  async servedAll(): Promise<Map<string, ServedCertificate>> {
    const served = new Map<string, ServedCertificate>();
    if (!this.settings.secrets) return served;
    for (const row of await queries.listServed(this.db)) {
      const pair = this.opened(row);
      if (pair) served.set(row.hostname, pair);
    }
    return served;
  }

  /** Every served certificate's version (its issue time), by hostname: what changed, without opening a key. */
  async servedVersions(): Promise<Map<string, string>> {
    if (!this.settings.secrets) return new Map();
    return new Map((await queries.listServedVersions(this.db)).map((row) => [row.hostname, row.version]));
  }

  private opened(row: queries.ServedRow): ServedCertificate | null {
    if (!row.certificatePem || !row.privateKeySealed || !this.settings.secrets) return null;
    return {
      certificatePem: row.certificatePem,
      privateKeyPem: this.settings.secrets.open(row.privateKeySealed, KEY_PURPOSE(row.domainId)),
    };
  }

  /**
   * The worker's step: queues newly active domains, asks the CA for the renewal window of certificates due for that
   * check (ARI), then orders every certificate due (first issue, renewal, retry).
   */
  async issueDue(limit = 5): Promise<number> {
    if (!this.issuer) return 0;
    await queries.purgeStale(this.db, 2 * ORDER_LOCK_MS);
    await queries.queueActiveDomains(this.db);
    await this.checkRenewalInfo(this.issuer);
    const due = await queries.findDue(this.db, limit);
    let worked = 0;
    for (const row of due) {
      const status: CertificateStatus = row.certificatePem ? 'renewing' : 'pending';
      if (!(await queries.lock(this.db, row.domainId, ORDER_LOCK_MS, status))) continue;
      worked++;
      // Rate limited: the rest of this batch may be under the same limit, and was deferred with it.
      if ((await this.order(row, this.issuer)) === 'held') break;
    }
    return worked;
  }

  /** Alerts each certificate that reached its expiry warning, once, as an event: notification channels and webhooks get it. */
  async alertExpiring(): Promise<void> {
    for (const row of await queries.claimExpiring(this.db, EXPIRY_ALERTS_PER_RUN)) {
      await this.events.record(
        row.tenantId,
        'domain.certificate_expiring',
        { type: 'domain', id: row.domainId },
        { hostname: row.hostname, not_after: row.notAfter.toISOString(), last_error: row.lastError },
      );
    }
  }

  /** Asks the CA again for the renewal window of served certificates due for it, and moves their renewal to match. */
  private async checkRenewalInfo(issuer: AcmeIssuer): Promise<void> {
    const rows = await queries.claimRenewalInfoChecks(this.db, RENEWAL_INFO_CHECKS_PER_RUN, RENEWAL_INFO_LEASE_MS);
    for (const row of rows) {
      if (!row.certificatePem) continue;
      const answer = await issuer.renewalInfo(row.certificatePem);
      await queries.saveRenewalSchedule(this.db, row.domainId, row.certificatePem, rescheduled(row, answer));
    }
  }

  private async order(
    row: DomainCertificateRow & { tenantId: string },
    issuer: AcmeIssuer,
  ): Promise<'issued' | 'failed' | 'held'> {
    const object = { type: 'domain', id: row.domainId };
    try {
      const issued = await issuer.issue(row.hostname, row.certificatePem);
      const acme = this.settings.acme!;
      const schedule = firstSchedule(issued, await issuer.renewalInfo(issued.certificatePem), acme.renewAfterFraction);
      await queries.saveIssued(this.db, row.domainId, {
        issuer: issued.issuer,
        notBefore: issued.notBefore,
        notAfter: issued.notAfter,
        certificatePem: issued.certificatePem,
        privateKeySealed: this.settings.secrets!.seal(issued.privateKeyPem, KEY_PURPOSE(row.domainId)),
        ...schedule,
        expiryWarningAt: expiryWarningAt(issued, acme.renewAfterFraction),
      });
      await this.invalidations.publish({ kind: 'certificate', id: row.hostname });
      await this.events.record(row.tenantId, 'domain.certificate_issued', object, {
        hostname: row.hostname,
        issuer: issued.issuer,
        not_after: issued.notAfter.toISOString(),
      });
      return 'issued';
    } catch (error) {
      const attempts = row.attempts + 1;
      const stillValid = row.notAfter !== null && row.notAfter.getTime() > Date.now();
      const limited = error instanceof AcmeRateLimitedError ? error : null;
      const lastError = limited
        ? describe(`Rate limited by the CA until ${limited.until.toISOString()}: ${limited.message}`)
        : describe(error);
      await queries.saveFailure(this.db, row.domainId, {
        status: stillValid ? 'renewing' : 'failed',
        lastError,
        attempts,
        nextAttemptAt: limited?.until ?? new Date(Date.now() + this.retryDelayMs(attempts)),
      });
      // Every order under the same limit waits with this one (the registered domain's, else the account's).
      if (limited) await queries.deferDue(this.db, limited.registeredDomain, limited.until);
      if (attempts === 1)
        await this.events.record(row.tenantId, 'domain.certificate_failed', object, {
          hostname: row.hostname,
          error: lastError,
          still_served: stillValid,
        });
      return limited ? 'held' : 'failed';
    }
  }

  private retryDelayMs(attempts: number): number {
    const { retryBaseMs, retryMaxMs } = this.settings.acme!;
    return Math.min(retryBaseMs * 2 ** (attempts - 1), retryMaxMs);
  }
}

/**
 * A new certificate's renewal: at a random time of the window the CA suggests when it offers ARI (RFC 9773), else (no
 * ARI, or the CA did not answer) by our own rule (renewalAt). The window is asked for again when the CA says, or an
 * hour after a failure.
 */
function firstSchedule(
  issued: IssuedCertificate,
  answer: RenewalInfoAnswer,
  renewAfterFraction: number,
): queries.RenewalSchedule {
  if (answer.kind === 'window')
    return {
      renewAt: timeInWindow(answer),
      renewalSource: 'ari',
      renewalExplanationUrl: answer.explanationUrl,
      renewalInfoCheckAt: answer.recheckAt,
    };
  return {
    renewAt: renewalAt(issued, renewAfterFraction),
    renewalSource: 'local',
    renewalExplanationUrl: null,
    renewalInfoCheckAt: answer.kind === 'failed' ? answer.recheckAt : null,
  };
}

/**
 * A served certificate's renewal after the CA was asked again. A window keeps the renewal time when it still falls
 * inside it, else a new random time of the window is taken (one in the past, as before a mass revocation, renews at
 * the next step). Without an answer the renewal stays as it was; a CA that stopped offering ARI is no longer asked.
 */
function rescheduled(row: queries.RenewalInfoRow, answer: RenewalInfoAnswer): queries.RenewalSchedule {
  const kept: queries.RenewalSchedule = {
    renewAt: row.nextAttemptAt,
    renewalSource: row.renewalSource ?? 'local',
    renewalExplanationUrl: row.renewalExplanationUrl,
    renewalInfoCheckAt: null,
  };
  if (answer.kind === 'unsupported') return kept;
  if (answer.kind === 'failed') return { ...kept, renewalInfoCheckAt: answer.recheckAt };
  const current = row.nextAttemptAt.getTime();
  const inside = row.renewalSource === 'ari' && current >= answer.start.getTime() && current <= answer.end.getTime();
  return {
    renewAt: inside ? row.nextAttemptAt : timeInWindow(answer),
    renewalSource: 'ari',
    renewalExplanationUrl: answer.explanationUrl,
    renewalInfoCheckAt: answer.recheckAt,
  };
}

/** The share of a certificate's lifetime its renewal is spread over, ending at the configured fraction. */
export const RENEWAL_SPREAD = 0.1;

/**
 * When to renew: at a random point of the last tenth of the lifetime before `renewAfterFraction` (days 51 to 60 of a
 * 90-day certificate at two thirds), so certificates issued together (a fleet moved in one day) are not all
 * renewed together, against the CA's rate limits. Never later than the fraction, so the expiry warning still
 * comes after a renewal had its chance.
 */
export function renewalAt(
  { notBefore, notAfter }: { notBefore: Date; notAfter: Date },
  renewAfterFraction: number,
  random: () => number = Math.random,
): Date {
  const lifetime = notAfter.getTime() - notBefore.getTime();
  const latest = renewAfterFraction;
  const earliest = Math.max(renewAfterFraction / 2, renewAfterFraction - RENEWAL_SPREAD);
  return new Date(notBefore.getTime() + lifetime * (earliest + (latest - earliest) * random()));
}

/**
 * When a certificate counts as near expiry: halfway from when its renewal was due to its expiry, and 14 days before
 * it at the earliest. A 90-day certificate renewed at two thirds: 14 days before, after 16 days of failed renewals.
 */
export function expiryWarningAt(
  { notBefore, notAfter }: { notBefore: Date; notAfter: Date },
  renewAfterFraction: number,
): Date {
  const lifetime = notAfter.getTime() - notBefore.getTime();
  const warning = Math.min(EXPIRY_WARNING_MAX_MS, (lifetime * (1 - renewAfterFraction)) / 2);
  return new Date(notAfter.getTime() - warning);
}

/** The CA's problem detail (what the owner can act on), without stack or key material; one line, bounded. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 500) || 'The certificate order failed.';
}
