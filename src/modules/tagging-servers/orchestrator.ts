/**
 * Google's tagging servers run for `sgtm` containers: one interface, two drivers (`process`: supervised child
 * processes on loopback, for one machine; `kubernetes`: server-side applied objects, for production). The container
 * worker drives a container's lifecycle through `apply`/`stop`/`restart`/`remove` and follows `observe`; the
 * gateway only asks `endpoints`, whatever the driver.
 */

export const ORCHESTRATOR_DRIVERS = ['process', 'kubernetes'] as const;
export type OrchestratorDriver = (typeof ORCHESTRATOR_DRIVERS)[number];

/** What a container's tagging servers should be. Applying the same spec twice changes nothing. */
export interface TaggingServerSpec {
  containerId: string;
  tenantId: string;
  /** The container config string from GTM (base64 of `id=GTM-…&env=…&auth=…`): `CONTAINER_CONFIG`. A secret. */
  config: string;
  /** The https URL the gateway serves the preview server at: `PREVIEW_SERVER_URL` of the tagging replicas. */
  previewServerUrl: string;
  /** Image tag (kubernetes) or version label (process) of Google's tagging server, e.g. `stable` or `2.4.0`. */
  version: string;
  /** Tagging replicas: the autoscaler's bounds (kubernetes); the process driver runs `min`. */
  replicas: { min: number; max: number };
  /** Per tagging replica (kubernetes requests and limits; the process driver ignores them). */
  resources: { cpuMillis: number; memoryMiB: number };
}

/**
 * How a container's tagging servers are doing. `progressing`: starting or rolling out; `available`: at least one
 * tagging replica and the preview server are ready; `failed`: they cannot start (bad config, image, crash loop),
 * with the reason the tagging server or Kubernetes gives; `stopped`: scaled to zero; `absent`: nothing applied.
 */
export interface TaggingServerState {
  phase: 'progressing' | 'available' | 'failed' | 'stopped' | 'absent';
  reason: string | null;
  replicas: { ready: number; desired: number; min: number; max: number };
  version: string | null;
}

export interface TaggingServerLogLine {
  /** The replica's name: `tagging-0`, `preview-0` (process) or the pod's name (kubernetes). */
  replica: string;
  stream: 'stdout' | 'stderr';
  /** ISO 8601. */
  at: string;
  line: string;
}

/** Where the gateway sends a container's requests: ready tagging replicas and the preview server, as `http://host:port`. */
export interface TaggingServerEndpoints {
  tagging: string[];
  preview: string[];
}

export interface TaggingServerOrchestrator {
  readonly driver: OrchestratorDriver;
  /** Creates or updates the container's tagging and preview servers to match `spec` (idempotent). */
  apply(spec: TaggingServerSpec): Promise<void>;
  /** Scales to zero, keeping what `apply` made; `apply` brings it back. */
  stop(containerId: string): Promise<void>;
  /** Replaces every replica, one by one where the driver can (a rollout restart). */
  restart(containerId: string): Promise<void>;
  /** Removes everything the container's tagging servers are made of. */
  remove(containerId: string): Promise<void>;
  observe(containerId: string): Promise<TaggingServerState>;
  /** The last `lines` lines of each replica, oldest first. */
  logs(containerId: string, options: { lines: number }): Promise<TaggingServerLogLine[]>;
  endpoints(containerId: string): Promise<TaggingServerEndpoints>;
}

/** The orchestrator could not be reached or refused a request: lifecycle actions answer 503. */
export class OrchestratorUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OrchestratorUnavailableError';
  }
}

/** Names of a container's objects and processes: `sgtm-<container id without prefix>`, DNS-label safe. */
export function taggingServerName(containerId: string): string {
  return `sgtm-${containerId
    .replace(/^ctr_/, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')}`;
}
