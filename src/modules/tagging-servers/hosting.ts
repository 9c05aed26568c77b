import {
  type TaggingServerEndpoints,
  type TaggingServerLogLine,
  type TaggingServerOrchestrator,
  type TaggingServerSpec,
  type TaggingServerState,
  OrchestratorUnavailableError,
} from './orchestrator.js';

/** What a container chose for its tagging servers (null: the platform's or the plan's). */
export interface TaggingServerChoice {
  version: string | null;
  min_replicas: number | null;
  max_replicas: number | null;
}

/** The plan features that bound an `sgtm` container. */
export interface TaggingServerPlan {
  sgtm_max_replicas?: number | boolean;
  sgtm_cpu_millis?: number | boolean;
  sgtm_memory_mib?: number | boolean;
}

export interface TaggingServerHostingSettings {
  /** Containers' default hostnames are `<label>.<baseDomain>`; their preview servers `<label>-preview.<baseDomain>`. */
  baseDomain: string;
  /** The version containers run unless they choose one. */
  defaultVersion: string;
  /** The gateway's https port as clients reach it; null or 443 leaves it out of the preview URL. */
  publicTlsPort: () => number | null;
  /** Why `sgtm` cannot run on this instance (no driver configured), or null when it can. */
  unavailable: string | null;
}

const PREVIEW_SUFFIX = '-preview';
/** A container id no container has: what the status check asks the orchestrator about. */
const STATUS_PROBE_CONTAINER = 'ctr_statusprobe';

/** The preview server's hostname of a container with this default hostname. */
export function previewHostname(defaultHostname: string): string {
  const dot = defaultHostname.indexOf('.');
  return `${defaultHostname.slice(0, dot)}${PREVIEW_SUFFIX}${defaultHostname.slice(dot)}`;
}

/** The default hostname a preview hostname belongs to, or null when `hostname` is not one. */
export function previewOf(hostname: string, baseDomain: string): string | null {
  const suffix = `${PREVIEW_SUFFIX}.${baseDomain}`;
  if (!hostname.endsWith(suffix)) return null;
  const label = hostname.slice(0, -suffix.length);
  return label && !label.includes('.') ? `${label}.${baseDomain}` : null;
}

/** Replica bounds out of the container's choice within its plan; `problem` names what is out of bounds. */
export function replicaBounds(
  choice: TaggingServerChoice,
  plan: TaggingServerPlan,
): { min: number; max: number; problem: 'plan' | 'order' | null; planMax: number } {
  const planMax = Math.max(1, Number(plan.sgtm_max_replicas ?? 1));
  const min = choice.min_replicas ?? 1;
  const max = choice.max_replicas ?? Math.max(min, planMax);
  const problem = max > planMax || min > planMax ? 'plan' : min > max ? 'order' : null;
  return { min, max, problem, planMax };
}

/**
 * Google's tagging servers as the containers module uses them: the orchestrator (null when `sgtm` is off here),
 * the spec of a container, its preview URL, and orchestrator failures told apart from answers.
 */
export class TaggingServerHosting {
  constructor(
    private readonly orchestrator: TaggingServerOrchestrator | null,
    private readonly settings: TaggingServerHostingSettings,
  ) {}

  /** Why `sgtm` cannot be chosen on this instance, or null. */
  get unavailable(): string | null {
    return this.orchestrator ? null : this.settings.unavailable;
  }

  get driver() {
    return this.orchestrator?.driver ?? null;
  }

  previewUrl(defaultHostname: string): string {
    const port = this.settings.publicTlsPort();
    return `https://${previewHostname(defaultHostname)}${port && port !== 443 ? `:${port}` : ''}`;
  }

  spec(container: {
    id: string;
    tenantId: string;
    defaultHostname: string;
    config: string;
    choice: TaggingServerChoice;
    plan: TaggingServerPlan;
  }): TaggingServerSpec {
    const { min, max } = replicaBounds(container.choice, container.plan);
    return {
      containerId: container.id,
      tenantId: container.tenantId,
      config: container.config,
      previewServerUrl: this.previewUrl(container.defaultHostname),
      version: container.choice.version ?? this.settings.defaultVersion,
      replicas: { min, max },
      resources: {
        cpuMillis: Number(container.plan.sgtm_cpu_millis ?? 250) || 250,
        memoryMiB: Number(container.plan.sgtm_memory_mib ?? 256) || 256,
      },
    };
  }

  apply(spec: TaggingServerSpec): Promise<void> {
    return this.required().apply(spec);
  }

  stop(containerId: string): Promise<void> {
    return this.required().stop(containerId);
  }

  restart(containerId: string): Promise<void> {
    return this.required().restart(containerId);
  }

  /** Removes a container's tagging servers; nothing to do where `sgtm` is off (none can exist). */
  async remove(containerId: string): Promise<void> {
    await this.orchestrator?.remove(containerId);
  }

  observe(containerId: string): Promise<TaggingServerState> {
    return this.required().observe(containerId);
  }

  logs(containerId: string, lines: number): Promise<TaggingServerLogLine[]> {
    return this.orchestrator ? this.orchestrator.logs(containerId, { lines }) : Promise.resolve([]);
  }

  endpoints(containerId: string): Promise<TaggingServerEndpoints> {
    return this.orchestrator ? this.orchestrator.endpoints(containerId) : Promise.resolve({ tagging: [], preview: [] });
  }

  /** The status page's check: whether the orchestrator answers (a container that does not exist is asked about). */
  async reachability(): Promise<{ status: 'operational' | 'degraded'; detail: string }> {
    try {
      await this.required().observe(STATUS_PROBE_CONTAINER);
      return { status: 'operational', detail: `The ${this.driver} orchestrator of the tagging servers answers.` };
    } catch (error) {
      if (!(error instanceof OrchestratorUnavailableError)) throw error;
      return { status: 'degraded', detail: `The tagging servers cannot be managed: ${error.message}` };
    }
  }

  private required(): TaggingServerOrchestrator {
    if (!this.orchestrator)
      throw new OrchestratorUnavailableError(this.settings.unavailable ?? 'No tagging server driver is configured.');
    return this.orchestrator;
  }
}
