import type { ContainerRequestLogRow, ContainerRow } from '../../db/schema.js';
import { maskConfig, parseContainerConfig } from './config-string.js';
import {
  ACTIONS,
  type ContainerAction,
  type ContainerDto,
  type ContainerHealthDto,
  type ContainerStatus,
  type RequestLogDto,
  type TaggingServerStatusDto,
  TRANSITIONS,
} from './schemas.js';
import { settingsFromStored } from './settings.js';

/** Containers and their request logs as the API shows them. */

export function allowedActions(status: ContainerStatus): ContainerAction[] {
  return ACTIONS.filter((action) => TRANSITIONS[action].from.includes(status));
}

export function toContainerDto(
  row: ContainerRow,
  {
    health,
    config,
    taggingServer,
  }: { health: ContainerHealthDto; config: string; taggingServer: TaggingServerStatusDto | null },
): ContainerDto {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    region: row.region,
    status: row.status,
    status_reason: row.statusReason,
    health,
    config: maskConfig(config),
    gtm_container_id: row.gtmContainerId ?? parseContainerConfig(config),
    runtime: row.runtime,
    upstream_url: row.upstreamUrl,
    settings: settingsFromStored(row.settings),
    tagging_server: taggingServer,
    default_hostname: row.defaultHostname,
    allowed_actions: allowedActions(row.status),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toRequestLogDto(row: ContainerRequestLogRow): RequestLogDto {
  return {
    id: row.id,
    at: row.at.toISOString(),
    hostname: row.hostname,
    method: row.method,
    path: row.path,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    upstream: row.upstream,
    upstream_ms: row.upstreamMs,
  };
}
