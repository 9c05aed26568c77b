import os from 'node:os';
import type { TaggingServersConfig } from '../../config/tagging-servers.js';
import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { SecretBox } from '../../lib/secrets.js';
import {
  OrchestratorUnavailableError,
  type TaggingServerLogLine,
  type TaggingServerOrchestrator,
  type TaggingServerSpec,
  type TaggingServerState,
  type TaggingServerEndpoints,
} from './orchestrator.js';
import { ProcessOrchestrator } from './process-driver.js';
import { TaggingServerSupervisor } from './supervisor.js';

/** Why `sgtm` is refused when the process driver has no command to run. */
export const PROCESS_DRIVER_OFF =
  "runtime sgtm is not enabled on this instance: its operator must set SGTM_COMMAND to the command that starts Google's tagging server (e.g. `node /opt/gtm/server_bin.js`), or SGTM_DRIVER=kubernetes; see docs/tagging-servers.md.";

export interface DriverDependencies {
  database: Database;
  invalidations: InvalidationBus;
  secrets: SecretBox;
}

/** The configured orchestrator, or null (with the reason) when `sgtm` cannot run here. */
export function orchestratorFromConfig(
  config: TaggingServersConfig,
  dependencies: DriverDependencies,
): { orchestrator: TaggingServerOrchestrator | null; unavailable: string | null } {
  if (config.driver === 'kubernetes')
    return {
      orchestrator: new KubernetesOnFirstUse(async () => {
        const { KubernetesOrchestrator } = await import('./kubernetes-driver.js');
        return KubernetesOrchestrator.fromSource({
          kubeConfig: config.kubeconfig ? { file: config.kubeconfig } : 'in-cluster',
          namespace: config.kubeNamespace,
          imageRepository: config.image,
        });
      }),
      unavailable: null,
    };
  if (!config.command) return { orchestrator: null, unavailable: PROCESS_DRIVER_OFF };
  return { orchestrator: new ProcessOrchestrator(dependencies), unavailable: null };
}

/**
 * The process driver's supervisor, for the one process that runs the replicas (the gateway's, which reaches them on
 * loopback); null for the kubernetes driver or without a command.
 */
export function supervisorFromConfig(
  config: TaggingServersConfig,
  dependencies: DriverDependencies,
  onError: (error: unknown) => void,
): TaggingServerSupervisor | null {
  if (config.driver !== 'process' || !config.command) return null;
  return new TaggingServerSupervisor(dependencies, {
    command: config.command,
    extraEnv: config.extraCaFile ? { NODE_EXTRA_CA_CERTS: config.extraCaFile } : {},
    healthIntervalMs: config.healthIntervalMs,
    stopGraceMs: config.stopGraceMs,
    supervisorName: `${os.hostname()}:${process.pid}`,
    onError,
  });
}

/**
 * The kubernetes driver, loaded when first used: its client library takes seconds to import, which every start of
 * the CLI (and every process without `sgtm` work) would otherwise pay.
 */
class KubernetesOnFirstUse implements TaggingServerOrchestrator {
  readonly driver = 'kubernetes' as const;
  private loaded: Promise<TaggingServerOrchestrator> | null = null;

  constructor(private readonly load: () => Promise<TaggingServerOrchestrator>) {}

  /** The driver; one that cannot be set up (no kubeconfig, say) is unavailable, and tried again next time. */
  private get driverNow(): Promise<TaggingServerOrchestrator> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = null;
      throw new OrchestratorUnavailableError(
        `The kubernetes driver could not be set up: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    });
    return this.loaded;
  }

  async apply(spec: TaggingServerSpec): Promise<void> {
    return (await this.driverNow).apply(spec);
  }

  async stop(containerId: string): Promise<void> {
    return (await this.driverNow).stop(containerId);
  }

  async restart(containerId: string): Promise<void> {
    return (await this.driverNow).restart(containerId);
  }

  async remove(containerId: string): Promise<void> {
    return (await this.driverNow).remove(containerId);
  }

  async observe(containerId: string): Promise<TaggingServerState> {
    return (await this.driverNow).observe(containerId);
  }

  async logs(containerId: string, options: { lines: number }): Promise<TaggingServerLogLine[]> {
    return (await this.driverNow).logs(containerId, options);
  }

  async endpoints(containerId: string): Promise<TaggingServerEndpoints> {
    return (await this.driverNow).endpoints(containerId);
  }
}
