import {
  ApiException,
  CoreV1Api,
  createConfiguration,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  ServerConfiguration,
  type V1Deployment,
  type V1Pod,
  type V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  containerSelector,
  dependentManifests,
  type KubernetesPlacement,
  REPLICAS_MAX_ANNOTATION,
  REPLICAS_MIN_ANNOTATION,
  RESTARTED_AT_ANNOTATION,
  secretManifest,
  serviceUrl,
  taggingServerObjectNames,
} from './kubernetes-objects.js';
import {
  OrchestratorUnavailableError,
  type TaggingServerEndpoints,
  type TaggingServerLogLine,
  type TaggingServerOrchestrator,
  type TaggingServerSpec,
  type TaggingServerState,
} from './orchestrator.js';

const FIELD_MANAGER = 'tagport';
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Waiting reasons of a pod's container that mean it will not start without a change (config, image or code). */
const FAILING_WAIT_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);

/** Where the driver finds its kubeconfig: a file (`SGTM_KUBECONFIG`), the pod's service account, or kubectl's default. */
export type KubeConfigSource = { file: string } | 'in-cluster' | 'default';

export interface KubernetesOrchestratorOptions extends KubernetesPlacement {
  kubeConfig: KubeConfig;
  /** Each call to the API server is abandoned after this long (then `OrchestratorUnavailableError`). */
  requestTimeoutMs?: number;
}

export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (source === 'in-cluster') kubeConfig.loadFromCluster();
  else if (source === 'default') kubeConfig.loadFromDefault();
  else kubeConfig.loadFromFile(source.file);
  return kubeConfig;
}

type Deployment = V1Deployment & { metadata: { name: string } };
type Manifest = KubernetesObject & { metadata: { name: string; namespace: string } };

export class KubernetesOrchestrator implements TaggingServerOrchestrator {
  readonly driver = 'kubernetes' as const;
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly placement: KubernetesPlacement;
  private readonly apiServer: string;

  constructor(options: KubernetesOrchestratorOptions) {
    const cluster = options.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The kubeconfig names no current cluster');
    this.apiServer = cluster.server;
    this.placement = { namespace: options.namespace, imageRepository: options.imageRepository };
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: options.kubeConfig },
      promiseMiddleware: [
        {
          pre: async (request) => {
            request.setSignal(timeoutSignal(timeoutMs));
            return request;
          },
          post: async (response) => response,
        },
      ],
    });
    this.objects = new KubernetesObjectApi(configuration);
    this.core = new CoreV1Api(configuration);
  }

  static fromSource(options: KubernetesPlacement & { kubeConfig: KubeConfigSource; requestTimeoutMs?: number }) {
    return new KubernetesOrchestrator({ ...options, kubeConfig: loadKubeConfig(options.kubeConfig) });
  }

  async apply(spec: TaggingServerSpec): Promise<void> {
    const redact = [spec.config, Buffer.from(spec.config, 'utf8').toString('base64')];
    const secret = await this.call(
      'apply the Secret',
      () => this.serverSideApply(secretManifest(spec, this.placement)),
      redact,
    );
    const uid = secret.metadata?.uid;
    if (!uid) throw new Error(`The Kubernetes API server ${this.apiServer} gave the Secret no uid`);
    for (const manifest of dependentManifests(spec, this.placement, uid)) {
      await this.call(`apply the ${manifest.kind}`, () => this.serverSideApply(manifest), redact);
    }
  }

  /** The autoscaler goes first: it cannot hold zero replicas and would scale the Deployment back up. */
  async stop(containerId: string): Promise<void> {
    const names = taggingServerObjectNames(containerId);
    await this.ignoringNotFound('delete the HorizontalPodAutoscaler', () =>
      this.objects.delete(this.header('autoscaling/v2', 'HorizontalPodAutoscaler', names.tagging)),
    );
    for (const name of [names.tagging, names.preview]) {
      await this.ignoringNotFound('scale the Deployment to zero', () =>
        this.mergePatch(this.header('apps/v1', 'Deployment', name), { spec: { replicas: 0 } }),
      );
    }
  }

  async restart(containerId: string): Promise<void> {
    const names = taggingServerObjectNames(containerId);
    const restartedAt = new Date().toISOString();
    const patch = { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: restartedAt } } } } };
    for (const name of [names.tagging, names.preview]) {
      await this.ignoringNotFound('restart the Deployment', () =>
        this.mergePatch(this.header('apps/v1', 'Deployment', name), patch),
      );
    }
  }

  async remove(containerId: string): Promise<void> {
    const secret = this.header('v1', 'Secret', taggingServerObjectNames(containerId).secret);
    await this.ignoringNotFound('delete the Secret', () =>
      this.objects.delete(secret, undefined, undefined, undefined, undefined, 'Background'),
    );
  }

  async observe(containerId: string): Promise<TaggingServerState> {
    const names = taggingServerObjectNames(containerId);
    const [secret, tagging, preview, autoscaler] = await Promise.all([
      this.readOrNull(this.header('v1', 'Secret', names.secret)),
      this.readOrNull<Deployment>(this.header('apps/v1', 'Deployment', names.tagging)),
      this.readOrNull<Deployment>(this.header('apps/v1', 'Deployment', names.preview)),
      this.readOrNull<V2HorizontalPodAutoscaler>(
        this.header('autoscaling/v2', 'HorizontalPodAutoscaler', names.tagging),
      ),
    ]);
    if (!secret || !tagging || !preview) return ABSENT;
    const replicas = replicaCounts(tagging, autoscaler);
    const version = imageTag(tagging);
    if (tagging.spec?.replicas === 0) return { phase: 'stopped', reason: null, replicas, version };
    const failure =
      deploymentFailure(tagging) ?? deploymentFailure(preview) ?? podFailure(await this.pods(containerId));
    if (failure) return { phase: 'failed', reason: failure, replicas, version };
    const available = [tagging, preview].every((deployment) => (deployment.status?.availableReplicas ?? 0) >= 1);
    return { phase: available ? 'available' : 'progressing', reason: null, replicas, version };
  }

  async logs(containerId: string, options: { lines: number }): Promise<TaggingServerLogLine[]> {
    const pods = await this.pods(containerId);
    const perPod = await Promise.all(pods.map((pod) => this.podLog(pod.metadata?.name ?? '', options.lines)));
    return perPod.flat().sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }

  /** The Services' cluster DNS names: Kubernetes sends traffic only to ready pods, so no call is needed. */
  async endpoints(containerId: string): Promise<TaggingServerEndpoints> {
    const names = taggingServerObjectNames(containerId);
    return {
      tagging: [serviceUrl(names.tagging, this.placement.namespace)],
      preview: [serviceUrl(names.preview, this.placement.namespace)],
    };
  }

  private header(apiVersion: string, kind: string, name: string): Manifest {
    return { apiVersion, kind, metadata: { name, namespace: this.placement.namespace } };
  }

  private serverSideApply<T extends KubernetesObject>(manifest: T): Promise<T> {
    return this.objects.patch(manifest, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }

  private mergePatch(target: Manifest, patch: object): Promise<KubernetesObject> {
    const body = { ...target, ...patch };
    return this.objects.patch(body, undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch);
  }

  private async pods(containerId: string): Promise<V1Pod[]> {
    const list = await this.call('list the pods', () =>
      this.objects.list<V1Pod>(
        'v1',
        'Pod',
        this.placement.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        containerSelector(containerId),
      ),
    );
    return list.items;
  }

  /** A pod whose container has not started yet has no log (400 from Kubernetes): it contributes no lines. */
  private async podLog(pod: string, lines: number): Promise<TaggingServerLogLine[]> {
    const text = await this.call(
      `read the log of pod ${pod}`,
      () =>
        this.core.readNamespacedPodLog({
          name: pod,
          namespace: this.placement.namespace,
          tailLines: lines,
          timestamps: true,
        }),
      [],
      [400, 404],
    );
    return text === null ? [] : parseLogLines(pod, text);
  }

  private async readOrNull<T extends KubernetesObject>(header: Manifest): Promise<T | null> {
    return this.call(`read the ${header.kind} ${header.metadata.name}`, () => this.objects.read<T>(header), [], [404]);
  }

  private async ignoringNotFound(action: string, request: () => Promise<unknown>): Promise<void> {
    await this.call(action, request, [], [404]);
  }

  /**
   * Runs one API call and translates its failure: unreachable, timed out or 5xx → `OrchestratorUnavailableError`;
   * another 4xx → an Error carrying Kubernetes' Status message; a status in `absentOn` → null. Messages never include
   * the request (the client's own error text does) and `redact` strips anything the API server echoed back.
   */
  private call<T>(action: string, request: () => Promise<T>, redact?: string[]): Promise<T>;
  private call<T>(action: string, request: () => Promise<T>, redact: string[], absentOn: number[]): Promise<T | null>;
  private async call<T>(
    action: string,
    request: () => Promise<T>,
    redact: string[] = [],
    absentOn: number[] = [],
  ): Promise<T | null> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof ApiException) {
        if (absentOn.includes(error.code)) return null;
        throw this.apiError(action, error, redact);
      }
      if (isTransportFailure(error)) {
        const detail = transportDetail(error);
        throw new OrchestratorUnavailableError(
          `Could not ${action}: the Kubernetes API server ${this.apiServer} is unreachable (${detail})`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  private apiError(action: string, error: ApiException<unknown>, redact: string[]): Error {
    const status = statusMessage(error.body, redact);
    const message = `Could not ${action}: the Kubernetes API server ${this.apiServer} answered ${error.code}${status ? `: ${status}` : ''}`;
    return error.code >= 500 ? new OrchestratorUnavailableError(message) : new Error(message);
  }
}

const ABSENT: TaggingServerState = {
  phase: 'absent',
  reason: null,
  replicas: { ready: 0, desired: 0, min: 0, max: 0 },
  version: null,
};

/** Kubernetes' `Status.message`; the client hands the body over as text or parsed, depending on the API. */
function statusMessage(body: unknown, redact: string[]): string {
  const status = typeof body === 'string' ? parseJson(body) : body;
  const message =
    typeof status === 'object' && status !== null && typeof (status as { message?: unknown }).message === 'string'
      ? (status as { message: string }).message
      : '';
  return redact
    .filter((secret) => secret.length > 0)
    .reduce((text, secret) => text.split(secret).join('[redacted]'), message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The abort reason of a request that ran out of time (the client rewrites `message`, so no DOMException). */
class RequestTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RequestTimeout';
  }
}

function timeoutSignal(timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new RequestTimeout(timeoutMs)), timeoutMs).unref();
  return controller.signal;
}

/** Refused, reset, unresolvable or timed out: fetch's TypeError with a cause, or our abort reason. */
function isTransportFailure(error: unknown): boolean {
  return error instanceof RequestTimeout || (error instanceof TypeError && error.cause !== undefined);
}

function transportDetail(error: unknown): string {
  if (error instanceof RequestTimeout) return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? 'connection failed';
}

function replicaCounts(
  tagging: Deployment,
  autoscaler: V2HorizontalPodAutoscaler | null,
): TaggingServerState['replicas'] {
  const annotations = tagging.metadata.annotations ?? {};
  const desired = tagging.spec?.replicas ?? 0;
  return {
    ready: tagging.status?.readyReplicas ?? 0,
    desired,
    min: autoscaler?.spec?.minReplicas ?? Number(annotations[REPLICAS_MIN_ANNOTATION] ?? desired),
    max: autoscaler?.spec?.maxReplicas ?? Number(annotations[REPLICAS_MAX_ANNOTATION] ?? desired),
  };
}

/** The tag (or digest) of the tagging server's image: what `apply` was given as `version`. */
function imageTag(deployment: Deployment): string | null {
  const image = deployment.spec?.template.spec?.containers[0]?.image;
  if (!image) return null;
  const digest = image.indexOf('@');
  if (digest >= 0) return image.slice(digest + 1);
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(colon + 1) : 'latest';
}

function deploymentFailure(deployment: Deployment): string | null {
  const conditions = deployment.status?.conditions ?? [];
  const replicaFailure = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const deadline = conditions.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
  const failed = replicaFailure ?? deadline;
  return failed ? `${failed.reason ?? failed.type}: ${failed.message ?? ''}`.trim() : null;
}

function podFailure(pods: V1Pod[]): string | null {
  for (const pod of pods) {
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    for (const status of statuses) {
      const waiting = status.state?.waiting;
      if (!waiting?.reason || !FAILING_WAIT_REASONS.has(waiting.reason)) continue;
      const terminated = status.lastState?.terminated?.message?.trim();
      const reason = `${waiting.reason}: ${waiting.message ?? ''}`.trim();
      return terminated ? `${reason} (last termination: ${terminated})` : reason;
    }
  }
  return null;
}

/** `timestamps=true` puts an RFC 3339 time with nanoseconds and a space before each line. */
export function parseLogLines(pod: string, text: string): TaggingServerLogLine[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const space = line.indexOf(' ');
      const at = new Date(line.slice(0, space));
      return Number.isNaN(at.getTime()) || space < 0
        ? { replica: pod, stream: 'stdout' as const, at: new Date(0).toISOString(), line }
        : { replica: pod, stream: 'stdout' as const, at: at.toISOString(), line: line.slice(space + 1) };
    });
}
