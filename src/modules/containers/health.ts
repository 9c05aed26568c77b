import type { ContainerRow } from '../../db/schema.js';
import type { ContainerHealthDto, HEALTH_PROBLEMS } from './schemas.js';
import type { ContainerRuntimeKind } from './settings.js';

/** What the health check needs of a container: the gateway's route fields. */
export interface HealthTarget {
  containerId: string;
  status: string;
  upstreamUrl: string | null;
  runtime: ContainerRuntimeKind;
}

/** The gateway's health check (src/gateway/health.ts): null when healthy, else the code `/healthz` answers with. */
export interface ContainerHealthCheck {
  problem(target: HealthTarget): Promise<{ code: string; message: string } | null>;
}

const NOT_CHECKED: ContainerHealthDto = { status: 'not_checked', code: null, message: null };
const HEALTHY: ContainerHealthDto = { status: 'healthy', code: null, message: null };

/** A container's health as the API shows it: only a running container is checked. */
export async function healthOf(check: ContainerHealthCheck, row: ContainerRow): Promise<ContainerHealthDto> {
  if (row.status !== 'running') return NOT_CHECKED;
  const problem = await check.problem({
    containerId: row.id,
    status: row.status,
    upstreamUrl: row.upstreamUrl,
    runtime: row.runtime,
  });
  if (!problem) return HEALTHY;
  return { status: 'unhealthy', code: problem.code as (typeof HEALTH_PROBLEMS)[number], message: problem.message };
}
