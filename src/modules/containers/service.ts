import type { Database } from '../../db/index.js';
import type { ContainerRow } from '../../db/schema.js';
import { planLimitReached } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import { findTenantById } from '../tenants/queries.js';
import { effectiveFeatures } from '../tenants/service.js';
import { ContainerErrors } from './errors.js';
import * as queries from './queries.js';
import {
  ACTIONS,
  TRANSITIONS,
  type ContainerAction,
  type ContainerDto,
  type ContainerStatus,
  type CreateContainerInput,
  type UpdateContainerInput,
} from './schemas.js';

/** Decodes and checks a server-side GTM container config; returns the GTM container id. */
export function parseContainerConfig(config: string): string {
  const trimmed = config.trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(trimmed))
    throw ContainerErrors.invalidConfig('config must be the base64 container config string from Google Tag Manager.');
  const params = new URLSearchParams(Buffer.from(trimmed, 'base64').toString('utf8'));
  const id = params.get('id') ?? '';
  if (!/^GTM-[A-Z0-9]{4,12}$/.test(id))
    throw ContainerErrors.invalidConfig('config does not decode to a GTM container (id=GTM-…&env=…&auth=…).');
  if (!/^\d{1,6}$/.test(params.get('env') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid env parameter.');
  if (!/^[A-Za-z0-9_-]{6,200}$/.test(params.get('auth') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid auth parameter.');
  return id;
}

export function allowedActions(status: string): ContainerAction[] {
  return ACTIONS.filter((action) => TRANSITIONS[action].from.includes(status as ContainerStatus));
}

export function toContainerDto(row: ContainerRow): ContainerDto {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    region: row.region as ContainerDto['region'],
    status: row.status as ContainerDto['status'],
    status_reason: row.statusReason,
    config: row.config,
    gtm_container_id: parseContainerConfig(row.config),
    upstream_url: row.upstreamUrl,
    default_hostname: row.defaultHostname,
    allowed_actions: allowedActions(row.status),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export interface ContainerRuntime {
  /** Asks the worker to carry the container's transitional state forward. */
  enqueue(containerId: string): void;
}

export class ContainerService {
  constructor(
    private readonly database: Database,
    private readonly outbound: OutboundClient,
    private readonly events: EventLog,
    private readonly runtime: ContainerRuntime,
    private readonly gatewayBaseDomain: string,
  ) {}

  private get db() {
    return this.database.db;
  }

  async checkUpstream(url: string | null | undefined): Promise<void> {
    if (url === null || url === undefined) return;
    try {
      await this.outbound.checkUrl(url);
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        throw ContainerErrors.upstreamRefused(error);
      }
      throw error;
    }
  }

  async create(tenantId: string, input: CreateContainerInput): Promise<ContainerDto> {
    parseContainerConfig(input.config);
    await this.checkUpstream(input.upstream_url);
    const tenant = await findTenantById(this.db, tenantId);
    const limit = Number(tenant ? (effectiveFeatures(tenant).max_containers ?? 0) : 0);
    if ((await queries.countLiveContainers(this.db, tenantId)) >= limit) {
      throw planLimitReached('containers', limit);
    }
    const id = newId('container');
    const row = await queries.insertContainer(this.db, {
      id,
      tenantId,
      name: input.name.trim(),
      region: input.region,
      status: 'provisioning',
      config: input.config.trim(),
      upstreamUrl: input.upstream_url ?? null,
      defaultHostname: `${id.slice(4)}.${this.gatewayBaseDomain}`,
    });
    await this.events.record(
      tenantId,
      'container.status_changed',
      { type: 'container', id },
      { from: null, to: 'provisioning' },
    );
    this.runtime.enqueue(id);
    return toContainerDto(row);
  }

  async list(tenantId: string, limit: number, offset: number) {
    const { rows, total } = await queries.listContainers(this.db, tenantId, limit, offset);
    return { results: rows.map(toContainerDto), total };
  }

  async find(tenantId: string, id: string): Promise<ContainerRow> {
    const row = await queries.findContainer(this.db, tenantId, id);
    if (!row) throw ContainerErrors.notFound(id);
    return row;
  }

  async get(tenantId: string, id: string): Promise<ContainerDto> {
    return toContainerDto(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, input: UpdateContainerInput): Promise<ContainerDto> {
    if (input.config !== undefined) parseContainerConfig(input.config);
    await this.checkUpstream(input.upstream_url);
    const row = await queries.updateContainer(this.db, tenantId, id, {
      name: input.name?.trim(),
      config: input.config?.trim(),
      upstreamUrl: input.upstream_url === undefined ? undefined : input.upstream_url,
    });
    if (row) return toContainerDto(row);
    const current = await this.find(tenantId, id);
    throw ContainerErrors.notChangeable(current.status);
  }

  /** start / stop / restart / delete: an atomic move to the transitional state, then the worker finishes it. */
  async act(tenantId: string, id: string, action: ContainerAction): Promise<ContainerDto> {
    const current = await this.find(tenantId, id);
    const { from, to } = TRANSITIONS[action];
    const row = await queries.transition(this.db, id, from, {
      status: to,
      statusReason: null,
      pendingAction: action === 'restart' ? 'start' : null,
    });
    if (!row) {
      const latest = await this.find(tenantId, id);
      const allowed = allowedActions(latest.status);
      throw ContainerErrors.transitionNotAllowed(action, latest.status, allowed);
    }
    await this.events.record(
      tenantId,
      'container.status_changed',
      { type: 'container', id },
      { from: current.status, to, action },
    );
    this.runtime.enqueue(id);
    return toContainerDto(row);
  }
}
