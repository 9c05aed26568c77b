import type { IncidentRow, MonitorRow } from '../../db/schema.js';
import type { IncidentDto, MonitorDto } from './schemas.js';

export function toDto(row: MonitorRow, channelIds: string[]): MonitorDto {
  return {
    id: row.id,
    name: row.name,
    target: targetDto(row),
    method: row.method,
    interval_seconds: row.intervalSeconds,
    timeout_ms: row.timeoutMs,
    expected_status_codes: row.expectedStatusCodes,
    keyword: row.keyword,
    keyword_mode: row.keywordMode,
    degraded_after_ms: row.degradedAfterMs,
    confirmation_checks: row.confirmationChecks,
    notification_channel_ids: channelIds,
    status: row.status,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    next_check_at: row.paused ? null : row.nextCheckAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function targetDto(row: MonitorRow): MonitorDto['target'] {
  const type = row.targetType;
  const path = type === 'url' ? null : pathOf(row.url);
  return {
    type,
    url: row.url,
    container_id: type === 'container' ? row.targetId : null,
    domain_id: type === 'domain' ? row.targetId : null,
    path,
  };
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

export function incidentDto(row: IncidentRow): IncidentDto {
  return {
    id: row.id,
    monitor_id: row.monitorId,
    status: row.status,
    cause: row.cause,
    opened_at: row.openedAt.toISOString(),
    acknowledged_at: row.acknowledgedAt?.toISOString() ?? null,
    resolved_at: row.resolvedAt?.toISOString() ?? null,
  };
}
