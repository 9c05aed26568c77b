import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { SecretBox } from '../../lib/secrets.js';
import type {
  TaggingServerEndpoints,
  TaggingServerLogLine,
  TaggingServerOrchestrator,
  TaggingServerSpec,
  TaggingServerState,
} from './orchestrator.js';
import * as queries from './queries.js';

/** The invalidation the supervisor reconciles a container on. */
export const TAGGING_SERVER_INVALIDATION = 'tagging_server';

/** The purpose a container's CONTAINER_CONFIG is sealed under (bound to the container: it cannot be moved). */
export function configPurpose(containerId: string): string {
  return `tagging-server-config:${containerId}`;
}

export interface ProcessOrchestratorDependencies {
  database: Database;
  invalidations: InvalidationBus;
  secrets: SecretBox;
}

/**
 * The `process` driver's side that any Tagport process may run: it writes what should run to
 * `tagging_server_deployments` and reads what runs from `tagging_server_replicas`. The processes themselves are
 * started by the one `TaggingServerSupervisor` (supervisor.ts), which the invalidation wakes.
 */
export class ProcessOrchestrator implements TaggingServerOrchestrator {
  readonly driver = 'process' as const;

  constructor(private readonly dependencies: ProcessOrchestratorDependencies) {}

  private get db() {
    return this.dependencies.database.db;
  }

  async apply(spec: TaggingServerSpec): Promise<void> {
    const { secrets } = this.dependencies;
    const purpose = configPurpose(spec.containerId);
    await queries.writeDeployment(this.db, spec.containerId, (current) => {
      const changed =
        current !== null &&
        (current.version !== spec.version ||
          current.previewServerUrl !== spec.previewServerUrl ||
          openedOrNull(secrets, current.sealedConfig, purpose) !== spec.config);
      return {
        sealedConfig: changed || !current ? secrets.seal(spec.config, purpose) : current.sealedConfig,
        previewServerUrl: spec.previewServerUrl,
        version: spec.version,
        replicas: Math.max(0, spec.replicas.min),
        generation: current ? current.generation + (changed ? 1 : 0) : 1,
      };
    });
    await this.wakeSupervisor(spec.containerId);
  }

  async stop(containerId: string): Promise<void> {
    if (await queries.setDeploymentReplicas(this.db, containerId, 0)) await this.wakeSupervisor(containerId);
  }

  async restart(containerId: string): Promise<void> {
    if (await queries.bumpGeneration(this.db, containerId)) await this.wakeSupervisor(containerId);
  }

  /** Deletes the deployment; the supervisor stops the processes, then deletes their rows and logs. */
  async remove(containerId: string): Promise<void> {
    await queries.deleteDeployment(this.db, containerId);
    await this.wakeSupervisor(containerId);
  }

  async observe(containerId: string): Promise<TaggingServerState> {
    const deployment = await queries.findDeployment(this.db, containerId);
    if (!deployment) {
      return { phase: 'absent', reason: null, replicas: { ready: 0, desired: 0, min: 0, max: 0 }, version: null };
    }
    return stateOf(deployment, await queries.listReplicas(this.db, containerId));
  }

  async logs(containerId: string, options: { lines: number }): Promise<TaggingServerLogLine[]> {
    if (options.lines <= 0) return [];
    const rows = await queries.recentLogs(this.db, containerId, options.lines);
    return rows.map((row) => ({
      replica: row.replica,
      stream: row.stream === 'stderr' ? 'stderr' : 'stdout',
      at: new Date(row.at).toISOString(),
      line: row.line,
    }));
  }

  /** Ready replicas of any generation: during a rollout the old ones serve until their replacements are ready. */
  async endpoints(containerId: string): Promise<TaggingServerEndpoints> {
    const ready = (await queries.listReplicas(this.db, containerId)).filter(
      (row) => row.state === 'ready' && row.address,
    );
    const addresses = (role: string) => ready.filter((row) => row.role === role).map((row) => `http://${row.address}`);
    return { tagging: addresses('tagging'), preview: addresses('preview') };
  }

  private async wakeSupervisor(containerId: string): Promise<void> {
    await this.dependencies.invalidations.publish({ kind: TAGGING_SERVER_INVALIDATION, id: containerId });
  }
}

/** The sealed value, or null when it no longer opens (SECRETS_KEY changed): then it is replaced. */
function openedOrNull(secrets: SecretBox, sealed: string, purpose: string): string | null {
  try {
    return secrets.open(sealed, purpose);
  } catch {
    return null;
  }
}

/** The state a deployment's replica rows add up to (see TaggingServerState). */
export function stateOf(deployment: queries.DeploymentRow, rows: queries.ReplicaRow[]): TaggingServerState {
  const desired = deployment.replicas;
  const current = rows.filter((row) => row.generation === deployment.generation);
  // Replicas of an older generation still serve during a rollout: they count as ready, as Kubernetes counts them.
  const ready = rows.filter((row) => row.role === 'tagging' && row.state === 'ready').length;
  const base = { replicas: { ready, desired, min: desired, max: desired }, version: deployment.version };
  if (desired === 0) {
    const live = rows.some((row) => queries.LIVE_REPLICA_STATES.includes(row.state));
    return { ...base, phase: live ? 'progressing' : 'stopped', reason: null };
  }
  const failed = current.find((row) => row.state === 'failed');
  if (failed) return { ...base, phase: 'failed', reason: failed.reason ?? `${failed.name} failed` };
  const previewReady = rows.some((row) => row.role === 'preview' && row.state === 'ready');
  return { ...base, phase: ready >= 1 && previewReady ? 'available' : 'progressing', reason: null };
}
