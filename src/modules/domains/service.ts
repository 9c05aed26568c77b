import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import { domains, type DomainRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { REMOVED_STATUSES } from '../containers/schemas.js';
import { ContainerErrors } from '../containers/errors.js';
import type { CertificateService } from '../certificates/service.js';
import type { ContainerService } from '../containers/service.js';
import type { EventLog } from '../events/service.js';
import { DomainErrors } from './errors.js';
import { normaliseHostname, txtName, txtValue, type DomainVerifier, type Verification } from './dns.js';
import type { DomainDto, FailureReason } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';
import { readList } from '../../db/keyset.js';

const HOSTNAME_IN_USE: Verification = {
  ok: false,
  reason: 'hostname_in_use',
  detail:
    'Another account still proves ownership of this hostname with its own TXT record; remove that record, then verify again.',
};

/** A domain's change, named by its hostname: the gateways drop what they cached for that hostname only. */
const domainChanged = (hostname: string) => ({ kind: 'domain', id: hostname });

export interface DomainServiceDependencies {
  database: Database;
  containers: ContainerService;
  certificates: CertificateService;
  events: EventLog;
  invalidations: InvalidationBus;
  verifier: DomainVerifier;
}

export class DomainService {
  private readonly database: Database;
  private readonly containers: ContainerService;
  private readonly certificates: CertificateService;
  private readonly events: EventLog;
  private readonly invalidations: InvalidationBus;
  private readonly verifier: DomainVerifier;

  constructor(
    { database, containers, certificates, events, invalidations, verifier }: DomainServiceDependencies,
    private readonly settings: {
      gatewayBaseDomain: string;
      gatewayIps: string[];
      recheckIntervalMs: number;
      pendingTtlMs: number;
    },
  ) {
    this.database = database;
    this.containers = containers;
    this.certificates = certificates;
    this.events = events;
    this.invalidations = invalidations;
    this.verifier = verifier;
  }

  private get db() {
    return this.database.db;
  }

  /** `target` (the container's default hostname) and `certificate` are passed in by lists, which load them per page. */
  private async toDto(row: DomainRow, target?: string, certificate?: DomainDto['certificate']): Promise<DomainDto> {
    const routingTarget = target ?? (await this.containers.find(row.tenantId, row.containerId)).defaultHostname;
    const routing = [
      { type: 'CNAME' as const, name: row.hostname, value: routingTarget, purpose: 'routing' },
      ...this.settings.gatewayIps.map((ip) => ({
        type: 'A' as const,
        name: row.hostname,
        value: ip,
        purpose: 'routing (instead of the CNAME)',
      })),
    ];
    return {
      id: row.id,
      container_id: row.containerId,
      hostname: row.hostname,
      status: row.status,
      failure_reason: row.failureReason ? (row.failureReason.split(':')[0] as FailureReason) : null,
      failure_detail: row.failureReason ? row.failureReason.split(':').slice(1).join(':').trim() : null,
      dns_records: [
        ...routing,
        { type: 'TXT', name: txtName(row.hostname), value: txtValue(row.verificationToken), purpose: 'ownership' },
      ],
      last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
      verified_at: row.verifiedAt?.toISOString() ?? null,
      created_at: row.createdAt.toISOString(),
      certificate: certificate ?? (await this.certificates.summaries([row])).get(row.id)!,
    };
  }

  /**
   * Adds the tenant's claim on a hostname, pending until DNS proves it. Claims of other accounts never block it and
   * are not disclosed: whoever proves ownership first gets the hostname (see `claim`).
   */
  async create(tenantId: string, input: { hostname: string; container_id: string }): Promise<DomainDto> {
    const hostname = normaliseHostname(input.hostname);
    if (hostname === this.settings.gatewayBaseDomain || hostname.endsWith(`.${this.settings.gatewayBaseDomain}`)) {
      throw DomainErrors.reservedHostname();
    }
    const container = await this.containers.find(tenantId, input.container_id).catch(() => {
      throw ContainerErrors.notFound(input.container_id);
    });
    if (REMOVED_STATUSES.includes(container.status)) throw ContainerErrors.beingDeleted();
    await this.releaseExpired(hostname);
    const rows = await this.db
      .insert(domains)
      .values({
        id: newId('domain'),
        tenantId,
        containerId: container.id,
        hostname,
        status: 'pending_verification',
        verificationToken: randomBytes(16).toString('hex'),
      })
      .onConflictDoNothing()
      .returning();
    if (!rows[0]) throw DomainErrors.hostnameTaken(hostname);
    return this.toDto(rows[0], container.defaultHostname);
  }

  async list(tenantId: string, window: ListWindow) {
    const where = and(eq(domains.tenantId, tenantId), isNull(domains.deletedAt));
    const { rows, total } = await readList(
      this.db,
      window,
      { table: domains, scope: where, sortKey: domains.createdAt, id: domains.id, descending: true },
      (page) =>
        this.db
          .select()
          .from(domains)
          .where(page.where)
          .orderBy(...page.orderBy)
          .limit(page.limit)
          .offset(page.offset),
    );
    const [hostnames, certificates] = await Promise.all([
      this.containers.defaultHostnames(
        tenantId,
        rows.map((row) => row.containerId),
      ),
      this.certificates.summaries(rows),
    ]);
    const results = await Promise.all(
      rows.map((row) => this.toDto(row, hostnames.get(row.containerId), certificates.get(row.id))),
    );
    return { results, total };
  }

  /** The tenant's domain, unless deleted; null otherwise. */
  async findLive(tenantId: string, id: string): Promise<DomainRow | null> {
    const rows = await this.db
      .select()
      .from(domains)
      .where(and(eq(domains.id, id), eq(domains.tenantId, tenantId), isNull(domains.deletedAt)))
      .limit(1);
    return rows[0] ?? null;
  }

  private async find(tenantId: string, id: string): Promise<DomainRow> {
    const domain = await this.findLive(tenantId, id);
    if (!domain) throw DomainErrors.notFound(id);
    return domain;
  }

  async get(tenantId: string, id: string): Promise<DomainDto> {
    return this.toDto(await this.find(tenantId, id));
  }

  async delete(tenantId: string, id: string): Promise<DomainDto> {
    const row = await this.find(tenantId, id);
    await this.db.update(domains).set({ deletedAt: sql`now()` }).where(eq(domains.id, id));
    await this.invalidations.publish(domainChanged(row.hostname));
    return this.toDto(row);
  }

  /** Checks DNS now; pending/failed → active or failed (with the reason), active stays active unless DNS breaks. */
  async verify(tenantId: string, id: string): Promise<DomainDto> {
    const checked = await this.check(await this.find(tenantId, id));
    if (checked.deletedAt) throw DomainErrors.notFound(id);
    return this.toDto(checked);
  }

  private async check(row: DomainRow): Promise<DomainRow> {
    const outcome = await this.prove(row);
    return outcome.ok && row.status !== 'active' ? this.claim(row) : this.record(row, outcome);
  }

  private async prove(row: DomainRow): Promise<Verification> {
    const container = await this.containers.find(row.tenantId, row.containerId);
    return this.verifier.verify(row.hostname, container.defaultHostname, row.verificationToken);
  }

  /** Stores the outcome of a check; a change of status is published and recorded as an event. */
  private async record(row: DomainRow, outcome: Verification): Promise<DomainRow> {
    const status = outcome.ok ? 'active' : 'failed';
    const [updated] = await this.db
      .update(domains)
      .set({
        status,
        failureReason: outcome.ok ? null : `${outcome.reason}: ${outcome.detail}`,
        lastCheckedAt: sql`now()`,
        verifiedAt: outcome.ok ? (row.verifiedAt ?? new Date()) : row.verifiedAt,
      })
      .where(eq(domains.id, row.id))
      .returning();
    if (status !== row.status) await this.statusChanged(updated, outcome);
    return updated;
  }

  private async statusChanged(row: DomainRow, outcome: Verification): Promise<void> {
    await this.invalidations.publish(domainChanged(row.hostname));
    await this.events.record(
      row.tenantId,
      outcome.ok ? 'domain.verified' : 'domain.failed',
      { type: 'domain', id: row.id },
      { hostname: row.hostname, reason: outcome.ok ? null : outcome.reason },
    );
  }

  /**
   * A pending or failed claim whose DNS proof holds becomes active and takes the hostname over from the other
   * accounts' claims that are not active (their owners get `domain.released`). An active claim of another account is
   * checked again first: it keeps the hostname while its own proof still holds.
   */
  private async claim(row: DomainRow): Promise<DomainRow> {
    const [holder] = await this.db
      .select()
      .from(domains)
      .where(
        and(
          eq(domains.hostname, row.hostname),
          isNull(domains.deletedAt),
          eq(domains.status, 'active'),
          ne(domains.id, row.id),
        ),
      )
      .limit(1);
    if (holder && (await this.record(holder, await this.prove(holder))).status === 'active')
      return this.record(row, HOSTNAME_IN_USE);
    const outcome = await this.db.transaction(async (tx) => {
      const live = await tx
        .select()
        .from(domains)
        .where(and(eq(domains.hostname, row.hostname), isNull(domains.deletedAt)))
        .for('update');
      const own = live.find((claim) => claim.id === row.id);
      if (!own) return { kind: 'gone' as const };
      if (live.some((claim) => claim.id !== row.id && claim.status === 'active')) return { kind: 'in_use' as const };
      const released = live.filter((claim) => claim.id !== row.id);
      if (released.length)
        await tx
          .update(domains)
          .set({ deletedAt: sql`now()` })
          .where(
            inArray(
              domains.id,
              released.map((claim) => claim.id),
            ),
          );
      const [active] = await tx
        .update(domains)
        .set({
          status: 'active',
          failureReason: null,
          lastCheckedAt: sql`now()`,
          verifiedAt: own.verifiedAt ?? new Date(),
        })
        .where(eq(domains.id, row.id))
        .returning();
      return { kind: 'active' as const, active, released };
    });
    if (outcome.kind === 'gone') return (await this.db.select().from(domains).where(eq(domains.id, row.id)))[0];
    if (outcome.kind === 'in_use') return this.record(row, HOSTNAME_IN_USE);
    for (const claim of outcome.released) await this.released(claim, 'ownership_proven_elsewhere');
    await this.statusChanged(outcome.active, { ok: true });
    return outcome.active;
  }

  private async released(row: DomainRow, reason: 'expired' | 'ownership_proven_elsewhere'): Promise<void> {
    await this.events.record(
      row.tenantId,
      'domain.released',
      { type: 'domain', id: row.id },
      { hostname: row.hostname, reason },
    );
  }

  /** Claims never verified within the pending period are released: they stop holding the hostname for their owner. */
  private async releaseExpired(hostname?: string): Promise<number> {
    const expired = await this.db
      .update(domains)
      .set({ deletedAt: sql`now()` })
      .where(
        and(
          isNull(domains.deletedAt),
          isNull(domains.verifiedAt),
          ne(domains.status, 'active'),
          lt(domains.createdAt, sql`now() - ${`${this.settings.pendingTtlMs} milliseconds`}::interval`),
          hostname ? eq(domains.hostname, hostname) : undefined,
        ),
      )
      .returning();
    for (const row of expired) await this.released(row, 'expired');
    return expired.length;
  }

  /** The schedule: releases expired claims, then re-checks pending and failed domains not checked within the interval. */
  async recheckDue(limit = 50): Promise<number> {
    const released = await this.releaseExpired();
    const due = await this.db
      .select()
      .from(domains)
      .where(
        and(
          isNull(domains.deletedAt),
          inArray(domains.status, ['pending_verification', 'failed']),
          or(
            isNull(domains.lastCheckedAt),
            lt(domains.lastCheckedAt, new Date(Date.now() - this.settings.recheckIntervalMs)),
          ),
        ),
      )
      .limit(limit);
    for (const row of due) await this.check(row).catch(() => {});
    return released + due.length;
  }
}
