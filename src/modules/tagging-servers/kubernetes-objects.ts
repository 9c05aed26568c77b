import type {
  V1Container,
  V1Deployment,
  V1EnvVar,
  V1OwnerReference,
  V1PodDisruptionBudget,
  V1Probe,
  V1Secret,
  V1Service,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { type TaggingServerSpec, taggingServerName } from './orchestrator.js';

/**
 * The Kubernetes objects of one container's tagging servers, as pure functions of its spec. The Secret holding
 * `CONTAINER_CONFIG` is the root: every other object names it as owner, so deleting the Secret lets the garbage
 * collector remove the rest.
 */

export const TAGGING_PORT = 8080;
export const CONFIG_KEY = 'CONTAINER_CONFIG';
/** The pod template annotation `kubectl rollout restart` sets; changing it replaces every pod, one by one. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
/** The autoscaler's bounds, kept on the tagging Deployment so they survive `stop` (which deletes the autoscaler). */
export const REPLICAS_MIN_ANNOTATION = 'tagport.io/replicas-min';
export const REPLICAS_MAX_ANNOTATION = 'tagport.io/replicas-max';
const CPU_TARGET_PERCENT = 70;
const SERVER_CONTAINER = 'gtm-cloud-image';

export type TaggingServerRole = 'tagging' | 'preview';

export interface KubernetesPlacement {
  namespace: string;
  /** Google's image without a tag, e.g. `gcr.io/cloud-tagging-10302018/gtm-cloud-image`. */
  imageRepository: string;
}

export interface TaggingServerObjectNames {
  secret: string;
  tagging: string;
  preview: string;
}

/** Deployment, Service, autoscaler and disruption budget of the tagging role share `tagging`; preview's share `preview`. */
export function taggingServerObjectNames(containerId: string): TaggingServerObjectNames {
  const base = taggingServerName(containerId);
  return { secret: base, tagging: base, preview: `${base}-preview` };
}

export function containerSelector(containerId: string): string {
  return `tagport.io/container=${containerId}`;
}

export function serviceUrl(name: string, namespace: string): string {
  return `http://${name}.${namespace}.svc.cluster.local:${TAGGING_PORT}`;
}

function labels(spec: TaggingServerSpec, role?: TaggingServerRole): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'gtm-tagging-server',
    'app.kubernetes.io/managed-by': 'tagport',
    'tagport.io/tenant': spec.tenantId,
    'tagport.io/container': spec.containerId,
    ...(role ? { 'tagport.io/role': role } : {}),
  };
}

function podSelector(spec: TaggingServerSpec, role: TaggingServerRole): Record<string, string> {
  return { 'tagport.io/container': spec.containerId, 'tagport.io/role': role };
}

export function secretManifest(spec: TaggingServerSpec, placement: KubernetesPlacement): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: taggingServerObjectNames(spec.containerId).secret,
      namespace: placement.namespace,
      labels: labels(spec),
    },
    type: 'Opaque',
    data: { [CONFIG_KEY]: Buffer.from(spec.config, 'utf8').toString('base64') },
  };
}

function ownedBy(secret: { name: string; uid: string }): V1OwnerReference[] {
  return [{ apiVersion: 'v1', kind: 'Secret', name: secret.name, uid: secret.uid }];
}

function healthProbe(overrides: Partial<V1Probe>): V1Probe {
  return { httpGet: { path: '/healthz', port: TAGGING_PORT, scheme: 'HTTP' }, timeoutSeconds: 2, ...overrides };
}

function serverContainer(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  role: TaggingServerRole,
): V1Container {
  const secretName = taggingServerObjectNames(spec.containerId).secret;
  const env: V1EnvVar[] = [
    { name: CONFIG_KEY, valueFrom: { secretKeyRef: { name: secretName, key: CONFIG_KEY } } },
    { name: 'PORT', value: String(TAGGING_PORT) },
    role === 'tagging'
      ? { name: 'PREVIEW_SERVER_URL', value: spec.previewServerUrl }
      : { name: 'RUN_AS_PREVIEW_SERVER', value: 'true' },
  ];
  const quantities = { cpu: `${spec.resources.cpuMillis}m`, memory: `${spec.resources.memoryMiB}Mi` };
  return {
    name: SERVER_CONTAINER,
    image: `${placement.imageRepository}:${spec.version}`,
    ports: [{ name: 'http', containerPort: TAGGING_PORT, protocol: 'TCP' }],
    env,
    resources: { requests: quantities, limits: quantities },
    readinessProbe: healthProbe({ periodSeconds: 5, failureThreshold: 3 }),
    livenessProbe: healthProbe({ initialDelaySeconds: 15, periodSeconds: 10, failureThreshold: 6 }),
    securityContext: { allowPrivilegeEscalation: false },
  };
}

function deploymentManifest(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  owner: { name: string; uid: string },
  role: TaggingServerRole,
): V1Deployment {
  const names = taggingServerObjectNames(spec.containerId);
  const bounds = replicaBounds(spec);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: names[role],
      namespace: placement.namespace,
      labels: labels(spec, role),
      ...(role === 'tagging' && {
        annotations: { [REPLICAS_MIN_ANNOTATION]: String(bounds.min), [REPLICAS_MAX_ANNOTATION]: String(bounds.max) },
      }),
      ownerReferences: ownedBy(owner),
    },
    spec: {
      replicas: role === 'tagging' ? bounds.min : 1,
      revisionHistoryLimit: 3,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: podSelector(spec, role) },
      // A new replica must be ready before an old one goes: an upgrade or restart never lowers capacity.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels(spec, role) },
        spec: {
          // The tagging server has no business with the Kubernetes API.
          automountServiceAccountToken: false,
          containers: [serverContainer(spec, placement, role)],
        },
      },
    },
  };
}

/** The autoscaler needs at least one replica and a maximum no lower than its minimum. */
function replicaBounds(spec: TaggingServerSpec): { min: number; max: number } {
  const min = Math.max(1, spec.replicas.min);
  return { min, max: Math.max(min, spec.replicas.max) };
}

function autoscalerManifest(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  owner: { name: string; uid: string },
): V2HorizontalPodAutoscaler {
  const name = taggingServerObjectNames(spec.containerId).tagging;
  const bounds = replicaBounds(spec);
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace: placement.namespace,
      labels: labels(spec, 'tagging'),
      ownerReferences: ownedBy(owner),
    },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: bounds.min,
      maxReplicas: bounds.max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: CPU_TARGET_PERCENT } },
        },
      ],
    },
  };
}

/**
 * `maxUnavailable: 1` rather than `minAvailable: 1`: with a single replica, `minAvailable: 1` would forbid every
 * eviction and block node drains for good; one voluntary disruption at a time keeps the others serving.
 */
function disruptionBudgetManifest(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  owner: { name: string; uid: string },
): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: taggingServerObjectNames(spec.containerId).tagging,
      namespace: placement.namespace,
      labels: labels(spec, 'tagging'),
      ownerReferences: ownedBy(owner),
    },
    spec: { maxUnavailable: 1, selector: { matchLabels: podSelector(spec, 'tagging') } },
  };
}

function serviceManifest(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  owner: { name: string; uid: string },
  role: TaggingServerRole,
): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: taggingServerObjectNames(spec.containerId)[role],
      namespace: placement.namespace,
      labels: labels(spec, role),
      ownerReferences: ownedBy(owner),
    },
    spec: {
      type: 'ClusterIP',
      selector: podSelector(spec, role),
      ports: [{ name: 'http', port: TAGGING_PORT, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

export type DependentManifest = V1Deployment | V2HorizontalPodAutoscaler | V1PodDisruptionBudget | V1Service;

/** Everything but the Secret, owned by the Secret whose `uid` the API server gave when it was applied. */
export function dependentManifests(
  spec: TaggingServerSpec,
  placement: KubernetesPlacement,
  secretUid: string,
): DependentManifest[] {
  const owner = { name: taggingServerObjectNames(spec.containerId).secret, uid: secretUid };
  return [
    deploymentManifest(spec, placement, owner, 'tagging'),
    autoscalerManifest(spec, placement, owner),
    disruptionBudgetManifest(spec, placement, owner),
    serviceManifest(spec, placement, owner, 'tagging'),
    deploymentManifest(spec, placement, owner, 'preview'),
    serviceManifest(spec, placement, owner, 'preview'),
  ];
}
