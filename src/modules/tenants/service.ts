import type { Database } from '../../db/index.js';
import type { AuthContext } from '../../http/context.js';
import { newId } from '../../lib/ids.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import { ReadThroughCache } from '../../lib/cache.js';
import { type ListWindow, windowKey } from '../../lib/list-window.js';
import { TenantErrors } from './errors.js';
import * as queries from './queries.js';
import type { TenantRecord, TenantStatusFilter } from './queries.js';
import {
  CLIENT_PLAN_IDS,
  isPlanId,
  PLAN_IDS,
  type CreateTenantInput,
  type TenantDto,
  type UpdateTenantInput,
} from './schemas.js';

export function toTenantDto(row: TenantRecord): TenantDto {
  return {
    id: row.id,
    name: row.name,
    plan: row.planId,
    parent_id: row.parentId,
    status: row.status,
    features: { ...row.planFeatures, ...row.featureOverrides },
    require_two_factor: row.requireTwoFactor,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    archived_at: row.archivedAt?.toISOString() ?? null,
  };
}

export function effectiveFeatures(row: TenantRecord): Record<string, number | boolean> {
  return { ...row.planFeatures, ...row.featureOverrides };
}

type TenantPage = { results: TenantDto[]; total: number; exact: boolean };

export class TenantService {
  /** Tenant lists are read on every dashboard load and rarely change: cached, and cleared on any tenant write. */
  private readonly lists: ReadThroughCache<TenantPage>;

  private readonly database: Database;
  private readonly invalidations: InvalidationBus;

  constructor(
    { database, invalidations }: { database: Database; invalidations: InvalidationBus },
    { cacheTtlMs }: { cacheTtlMs: number },
  ) {
    this.database = database;
    this.invalidations = invalidations;
    this.lists = new ReadThroughCache(cacheTtlMs);
    invalidations.subscribe(({ kind }) => (kind === 'tenant' || kind === 'all') && this.lists.clear());
  }

  private get db() {
    return this.database.db;
  }

  /** The tenant's plan features with its overrides applied; empty for an unknown tenant (every limit reads as 0). */
  async features(tenantId: string): Promise<Record<string, number | boolean>> {
    const tenant = await queries.findTenantById(this.db, tenantId);
    return tenant ? effectiveFeatures(tenant) : {};
  }

  /** Operator path (CLI): any tenant by id, without an auth context; null when there is none. */
  async findForOperator(id: string): Promise<TenantDto | null> {
    const row = await queries.findTenantById(this.db, id);
    return row ? toTenantDto(row) : null;
  }

  /** The id of an active client tenant of `parentId` (the `Tagport-Tenant` header), or null. */
  async findActiveClient(parentId: string, id: string): Promise<{ id: string } | null> {
    return queries.findClientTenant(this.db, parentId, id);
  }

  async list(auth: AuthContext, status: TenantStatusFilter, window: ListWindow): Promise<TenantPage> {
    return this.lists.get(`${auth.tenantId}|${status}|${windowKey(window)}`, async () => {
      const { rows, total, exact } = await queries.listVisibleTenants(this.db, auth.tenantId, status, window);
      return { results: rows.map(toTenantDto), total, exact };
    });
  }

  private async changed(id: string): Promise<TenantDto> {
    await this.invalidations.publish({ kind: 'tenant', id });
    return toTenantDto((await queries.findTenantById(this.db, id))!);
  }

  async get(auth: AuthContext, id: string): Promise<TenantDto> {
    const row = await queries.findVisibleTenant(this.db, auth.tenantId, id);
    if (!row) throw TenantErrors.notFound(id);
    return toTenantDto(row);
  }

  /** Creates a client tenant under the caller, which must be allowed to own clients (agency, partner), within its plan's `max_client_tenants`. */
  async createClient(auth: AuthContext, input: CreateTenantInput): Promise<TenantDto> {
    const id = newId('tenant');
    const row = { id, name: input.name.trim(), planId: input.plan ?? 'free', parentId: auth.tenantId };
    const created = await queries.insertClientTenantWithinLimit(this.db, row);
    if (!created) throw await this.clientRefusal(auth.tenantId);
    await this.invalidations.publish({ kind: 'tenant', id });
    return toTenantDto(created);
  }

  /** Why a client tenant was not created: its parent may not own clients, or has reached its plan's limit. */
  private async clientRefusal(parentId: string) {
    const parent = await queries.findTenantById(this.db, parentId);
    if (!parent || parent.parentId || effectiveFeatures(parent).can_own_clients !== true)
      return TenantErrors.clientsNotAllowed();
    return TenantErrors.clientLimitReached(Number(effectiveFeatures(parent).max_client_tenants ?? 0));
  }

  /** Operator path (CLI): any plan, optional parent; the operator is not bound by `max_client_tenants`. */
  async create(input: { name: string; plan: string; parentId?: string | null }): Promise<TenantDto> {
    if (!isPlanId(input.plan)) throw TenantErrors.unknownPlan(input.plan, PLAN_IDS);
    if (input.parentId) {
      const parent = await queries.findTenantById(this.db, input.parentId);
      if (!parent) throw TenantErrors.notFound(input.parentId);
      if (parent.parentId || effectiveFeatures(parent).can_own_clients !== true) {
        throw TenantErrors.parentCannotOwnClients();
      }
      if (!(CLIENT_PLAN_IDS as readonly string[]).includes(input.plan)) {
        throw TenantErrors.notAClientPlan(CLIENT_PLAN_IDS);
      }
    }
    const id = newId('tenant');
    await queries.insertTenant(this.db, { id, name: input.name, planId: input.plan, parentId: input.parentId ?? null });
    return this.changed(id);
  }

  async update(auth: AuthContext, id: string, input: UpdateTenantInput): Promise<TenantDto> {
    const row = await queries.findVisibleTenant(this.db, auth.tenantId, id);
    if (!row) throw TenantErrors.notFound(id);
    const actingOnClient = row.parentId === auth.tenantId;
    if ((input.plan !== undefined || input.feature_overrides !== undefined) && !actingOnClient) {
      throw TenantErrors.planChangeNotAllowed();
    }
    if (input.plan !== undefined && !(CLIENT_PLAN_IDS as readonly string[]).includes(input.plan)) {
      throw TenantErrors.notAClientPlan(CLIENT_PLAN_IDS);
    }
    if (input.feature_overrides) {
      const unknown = Object.keys(input.feature_overrides).filter((key) => !(key in row.planFeatures));
      if (unknown.length) throw TenantErrors.unknownFeature(unknown[0], Object.keys(row.planFeatures));
      if ('can_own_clients' in input.feature_overrides) throw TenantErrors.featureNotOverridable();
    }
    if (row.status === 'archived') throw TenantErrors.archivedUnchangeable();
    await queries.updateTenant(this.db, id, {
      name: input.name?.trim(),
      planId: input.plan,
      featureOverrides: input.feature_overrides,
      requireTwoFactor: input.require_two_factor,
    });
    return this.changed(id);
  }

  /** Archives a client tenant: its keys and sessions stop working at once (the invalidation reaches the auth caches). */
  async archive(auth: AuthContext, id: string): Promise<TenantDto> {
    const row = await queries.findVisibleTenant(this.db, auth.tenantId, id);
    if (!row) throw TenantErrors.notFound(id);
    if (row.id === auth.credentialTenantId) throw TenantErrors.cannotArchiveSelf();
    if (row.status === 'archived') return toTenantDto(row);
    await queries.updateTenant(this.db, id, { status: 'archived', archivedAt: new Date() });
    return this.changed(id);
  }
}
