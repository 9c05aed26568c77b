import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import { domains, type DomainRow } from '../../db/schema.js';
import { conflict, invalidRequest, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { REMOVED_STATUSES } from '../containers/schemas.js';
import type { ContainerService } from '../containers/service.js';
import type { EventLog } from '../events/service.js';
import { normaliseHostname, txtName, txtValue, type DomainVerifier } from './dns.js';
import type { DomainDto, FailureReason } from './schemas.js';

export class DomainService {
  constructor(
    private readonly database: Database,
    private readonly containers: ContainerService,
    private readonly verifier: DomainVerifier,
    private readonly events: EventLog,
    private readonly invalidations: InvalidationBus,
    private readonly settings: { gatewayBaseDomain: string; gatewayIps: string[]; recheckIntervalMs: number },
  ) {}

  private get db() {
    return this.database.db;
  }

  private async toDto(row: DomainRow, target?: string): Promise<DomainDto> {
    const routingTarget = target ?? (await this.containers.find(row.tenantId, row.containerId)).defaultHostname;
    const routing = [
      { type: 'CNAME' as const, name: row.hostname, value: routingTarget, purpose: 'routing' },
      ...this.settings.gatewayIps.map((ip) => ({ type: 'A' as const, name: row.hostname, value: ip, purpose: 'routing (instead of the CNAME)' })),
    ];
    return {
      id: row.id,
      container_id: row.containerId,
      hostname: row.hostname,
      status: row.status as DomainDto['status'],
      failure_reason: row.failureReason ? (row.failureReason.split(':')[0] as FailureReason) : null,
      failure_detail: row.failureReason ? row.failureReason.split(':').slice(1).join(':').trim() : null,
      dns_records: [...routing, { type: 'TXT', name: txtName(row.hostname), value: txtValue(row.verificationToken), purpose: 'ownership' }],
      last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
      verified_at: row.verifiedAt?.toISOString() ?? null,
      created_at: row.createdAt.toISOString(),
    };
  }

  async create(tenantId: string, input: { hostname: string; container_id: string }): Promise<DomainDto> {
    const hostname = normaliseHostname(input.hostname);
    if (hostname === this.settings.gatewayBaseDomain || hostname.endsWith(`.${this.settings.gatewayBaseDomain}`)) {
      throw invalidRequest('reserved_hostname', 'Hostnames under the gateway domain are assigned by Tagport.', 'hostname');
    }
    const container = await this.containers.find(tenantId, input.container_id).catch(() => {
      throw notFound('container', input.container_id);
    });
    if (REMOVED_STATUSES.includes(container.status)) throw conflict('container_deleted', 'The container is being deleted.');
    const rows = await this.db
      .insert(domains)
      .values({ id: newId('domain'), tenantId, containerId: container.id, hostname, status: 'pending_verification', verificationToken: randomBytes(16).toString('hex') })
      .onConflictDoNothing()
      .returning();
    if (!rows[0]) throw conflict('hostname_taken', `${hostname} is already attached to a container.`);
    return this.toDto(rows[0], container.defaultHostname);
  }

  async list(tenantId: string, limit: number, offset: number) {
    const where = and(eq(domains.tenantId, tenantId), isNull(domains.deletedAt));
    const [rows, [{ total }]] = await Promise.all([
      this.db.select().from(domains).where(where).orderBy(desc(domains.createdAt), desc(domains.id)).limit(limit).offset(offset),
      this.db.select({ total: count() }).from(domains).where(where),
    ]);
    return { results: await Promise.all(rows.map((row) => this.toDto(row))), total };
  }

  /** The tenant's domain, unless deleted; null otherwise. */
  async findLive(tenantId: string, id: string): Promise<DomainRow | null> {
    const rows = await this.db.select().from(domains).where(and(eq(domains.id, id), eq(domains.tenantId, tenantId), isNull(domains.deletedAt))).limit(1);
    return rows[0] ?? null;
  }

  private async find(tenantId: string, id: string): Promise<DomainRow> {
    const domain = await this.findLive(tenantId, id);
    if (!domain) throw notFound('domain', id);
    return domain;
  }

  async get(tenantId: string, id: string): Promise<DomainDto> {
    return this.toDto(await this.find(tenantId, id));
  }

  async delete(tenantId: string, id: string): Promise<DomainDto> {
    const row = await this.find(tenantId, id);
    await this.db.update(domains).set({ deletedAt: sql`now()` }).where(eq(domains.id, id));
    await this.invalidations.publish({ kind: 'domain', id });
    return this.toDto(row);
  }

  /** Checks DNS now; pending/failed → active or failed (with the reason), active stays active unless DNS breaks. */
  async verify(tenantId: string, id: string): Promise<DomainDto> {
    return this.toDto(await this.check(await this.find(tenantId, id)));
  }

  private async check(row: DomainRow): Promise<DomainRow> {
    const container = await this.containers.find(row.tenantId, row.containerId);
    const outcome = await this.verifier.verify(row.hostname, container.defaultHostname, row.verificationToken);
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
    if (status !== row.status) {
      await this.invalidations.publish({ kind: 'domain', id: row.id });
      await this.events.record(row.tenantId, outcome.ok ? 'domain.verified' : 'domain.failed', { type: 'domain', id: row.id }, { hostname: row.hostname, reason: outcome.ok ? null : outcome.reason });
    }
    return updated;
  }

  /** The schedule: re-checks pending and failed domains not checked within the interval. */
  async recheckDue(limit = 50): Promise<number> {
    const due = await this.db
      .select()
      .from(domains)
      .where(
        and(
          isNull(domains.deletedAt),
          inArray(domains.status, ['pending_verification', 'failed']),
          or(isNull(domains.lastCheckedAt), lt(domains.lastCheckedAt, new Date(Date.now() - this.settings.recheckIntervalMs))),
        ),
      )
      .limit(limit);
    for (const row of due) await this.check(row).catch(() => {});
    return due.length;
  }
}
