import type { Database } from '../../db/index.js';
import type { AuthContext } from '../../http/context.js';
import { StatusErrors } from './errors.js';
import * as queries from './queries.js';
import type { StatusNotice, StatusSubscriptions } from './subscriptions.js';

export interface IncidentUpdateDto {
  status: queries.UpdateStatus;
  message: string;
  created_at: string;
}

export interface PlatformIncidentDto {
  id: string;
  component: string;
  title: string;
  status: 'open' | 'resolved';
  /** The status of the latest update. */
  stage: queries.UpdateStatus;
  source: 'automatic' | 'operator';
  opened_at: string;
  resolved_at: string | null;
  updates: IncidentUpdateDto[];
}

export interface MaintenanceDto {
  id: string;
  title: string;
  message: string;
  components: string[];
  starts_at: string;
  ends_at: string;
  state: 'scheduled' | 'in_progress' | 'completed';
}

export function toIncidentDto(
  row: queries.PlatformIncidentRow,
  updates: queries.IncidentUpdateRow[],
): PlatformIncidentDto {
  const own = updates
    .filter((update) => update.incidentId === row.id)
    .map((update) => ({
      status: update.status,
      message: update.message,
      created_at: update.createdAt.toISOString(),
    }));
  return {
    id: row.id,
    component: row.component,
    title: row.title,
    status: row.resolvedAt ? 'resolved' : 'open',
    stage: own[0]?.status ?? (row.resolvedAt ? 'resolved' : 'investigating'),
    source: row.source,
    opened_at: row.openedAt.toISOString(),
    resolved_at: row.resolvedAt?.toISOString() ?? null,
    updates: own,
  };
}

export function toMaintenanceDto(row: queries.MaintenanceRow, now = Date.now()): MaintenanceDto {
  const state = now < row.startsAt.getTime() ? 'scheduled' : now < row.endsAt.getTime() ? 'in_progress' : 'completed';
  return {
    id: row.id,
    title: row.title,
    message: row.message,
    components: row.components,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt.toISOString(),
    state,
  };
}

export interface NewIncident {
  component: string;
  title: string;
  status: queries.UpdateStatus;
  message: string;
}

export interface NewMaintenance {
  title: string;
  message: string;
  components?: string[];
  starts_at: string;
  ends_at: string;
}

/**
 * What platform operators post: incidents with timestamped updates and maintenance windows. The API checks the
 * caller is an admin or owner of an operator tenant (`assertOperator`); the CLI is an operator by definition.
 */
export class StatusIncidents {
  private readonly database: Database;
  private readonly subscriptions: StatusSubscriptions;

  constructor({ database, subscriptions }: { database: Database; subscriptions: StatusSubscriptions }) {
    this.database = database;
    this.subscriptions = subscriptions;
  }

  /** The role policy already asked for admin; the credential's own tenant must be a platform operator. */
  async assertOperator(auth: AuthContext): Promise<void> {
    if (!(await queries.isOperator(this.database.db, auth.credentialTenantId)))
      throw StatusErrors.notPlatformOperator();
  }

  async grantOperator(tenantId: string): Promise<{ tenant_id: string; platform_operator: true }> {
    await queries.addOperator(this.database.db, tenantId);
    return { tenant_id: tenantId, platform_operator: true };
  }

  async open(input: NewIncident): Promise<PlatformIncidentDto> {
    const row = await queries.insertOperatorIncident(
      this.database.db,
      { component: input.component, title: input.title },
      { status: input.status, message: input.message },
    );
    return this.announce(row);
  }

  async update(incidentId: string, input: { status: queries.UpdateStatus; message: string }) {
    const row = await queries.addIncidentUpdate(this.database.db, incidentId, input);
    if (row) return this.announce(row);
    if (await queries.findIncident(this.database.db, incidentId)) throw StatusErrors.incidentResolved();
    throw StatusErrors.incidentNotFound(incidentId);
  }

  /** The incident with its updates, after telling subscribers of its latest update. */
  async announce(row: queries.PlatformIncidentRow): Promise<PlatformIncidentDto> {
    const dto = toIncidentDto(row, await queries.updatesOf(this.database.db, [row.id]));
    const latest = dto.updates[0];
    await this.subscriptions.notify({
      kind: 'incident',
      id: dto.id,
      title: dto.title,
      status: dto.stage,
      message: latest?.message ?? dto.title,
      component: dto.component,
      at: latest?.created_at ?? dto.opened_at,
    });
    return dto;
  }

  async scheduleMaintenance(input: NewMaintenance): Promise<MaintenanceDto> {
    const startsAt = new Date(input.starts_at);
    const endsAt = new Date(input.ends_at);
    if (!(endsAt > startsAt)) throw StatusErrors.invalidMaintenanceWindow();
    const row = await queries.insertMaintenance(this.database.db, {
      title: input.title,
      message: input.message,
      components: input.components ?? [],
      startsAt,
      endsAt,
    });
    await this.subscriptions.notify(this.maintenanceNotice(row, 'scheduled'));
    return toMaintenanceDto(row);
  }

  async cancelMaintenance(id: string): Promise<MaintenanceDto> {
    const row = await queries.cancelMaintenance(this.database.db, id);
    if (!row) throw StatusErrors.maintenanceNotFound(id);
    await this.subscriptions.notify(this.maintenanceNotice(row, 'cancelled'));
    return toMaintenanceDto(row);
  }

  private maintenanceNotice(row: queries.MaintenanceRow, status: string): StatusNotice {
    return {
      kind: 'maintenance',
      id: row.id,
      title: row.title,
      status,
      message: `${row.message} (${row.startsAt.toISOString()} to ${row.endsAt.toISOString()})`,
      component: row.components.join(', ') || null,
      at: new Date().toISOString(),
    };
  }
}
