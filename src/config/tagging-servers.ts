import { type Env, integer, oneOf, optional } from './env.js';

/** Google's tagging servers for `sgtm` containers (src/modules/tagging-servers/). */
export interface TaggingServersConfig {
  /** SGTM_DRIVER: `process` (supervised child processes on this machine) or `kubernetes`. */
  driver: 'process' | 'kubernetes';
  /**
   * SGTM_COMMAND (process driver): the command starting one tagging server, run by /bin/sh, e.g.
   * `node /opt/gtm/server_bin.js`. Null: the process driver is off and `sgtm` containers are refused.
   */
  command: string | null;
  /** SGTM_VERSION: the tagging server version (image tag) containers get unless they choose their own. */
  version: string;
  /** SGTM_IMAGE (kubernetes driver): the image repository, without tag. */
  image: string;
  /** SGTM_KUBE_NAMESPACE (kubernetes driver). */
  kubeNamespace: string;
  /** SGTM_KUBECONFIG (kubernetes driver): a kubeconfig file; null: the in-cluster service account. */
  kubeconfig: string | null;
  /** SGTM_START_TIMEOUT_MS: how long a container may take to become available before it is `failed`. */
  startTimeoutMs: number;
  /** Process driver: how often each ready replica's `/healthz` is asked (SGTM_HEALTH_INTERVAL_MS). */
  healthIntervalMs: number;
  /** Process driver: how long a replica has between SIGTERM and SIGKILL (SGTM_STOP_GRACE_MS). */
  stopGraceMs: number;
  /** EXTRA_CA_CERTS, given to the replicas as NODE_EXTRA_CA_CERTS: they trust what Tagport's requests trust. */
  extraCaFile: string | null;
}

export function taggingServersConfig(env: Env): TaggingServersConfig {
  return {
    driver: oneOf(env, 'SGTM_DRIVER', ['process', 'kubernetes'] as const),
    command: optional(env, 'SGTM_COMMAND'),
    version: optional(env, 'SGTM_VERSION') ?? 'stable',
    image: optional(env, 'SGTM_IMAGE') ?? 'gcr.io/cloud-tagging-10302018/gtm-cloud-image',
    kubeNamespace: optional(env, 'SGTM_KUBE_NAMESPACE') ?? 'tagport-sgtm',
    kubeconfig: optional(env, 'SGTM_KUBECONFIG'),
    startTimeoutMs: integer(env, 'SGTM_START_TIMEOUT_MS', 300_000, 1000),
    healthIntervalMs: integer(env, 'SGTM_HEALTH_INTERVAL_MS', 2_000, 100),
    stopGraceMs: integer(env, 'SGTM_STOP_GRACE_MS', 10_000, 0),
    extraCaFile: optional(env, 'EXTRA_CA_CERTS'),
  };
}
