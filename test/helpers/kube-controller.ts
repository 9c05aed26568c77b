import { createHash } from 'node:crypto';

// The Deployment controller and kubelet of the stand-in API server (kube-api.ts): pods and Deployment status as
// functions of the Deployment and of the rollout state a test sets.

type Loose = any;

export type Rollout =
  | 'progressing'
  | 'available'
  /** The container exits: CrashLoopBackOff, with this as its last termination message. */
  | { crashLoop: string }
  /** The image cannot be pulled: ImagePullBackOff, with this message. */
  | { imagePull: string }
  | 'deadlineExceeded'
  /** The ReplicaSet cannot create pods (quota, admission): ReplicaFailure with this message. */
  | { replicaFailure: string };

export function shortHash(value: unknown, length: number): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, length);
}

/** The pods a Deployment's ReplicaSet would have, in the state `rollout` says; named from a hash of the template. */
export function podsOf(deployment: Loose, rollout: Rollout): Loose[] {
  const replicas = deployment.spec?.replicas ?? 1;
  if (replicas === 0 || (typeof rollout === 'object' && 'replicaFailure' in rollout)) return [];
  const template = deployment.spec.template;
  const templateHash = shortHash(template, 10);
  return Array.from({ length: replicas }, (_, index) => {
    const name = `${deployment.metadata.name}-${templateHash}-${shortHash([templateHash, index], 5)}`;
    const uid = shortHash(name, 32);
    const metadata = {
      name,
      namespace: deployment.metadata.namespace,
      uid,
      labels: { ...template.metadata?.labels, 'pod-template-hash': templateHash },
      annotations: template.metadata?.annotations,
    };
    const containers = template.spec.containers;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata,
      spec: template.spec,
      status: podStatus(rollout, containers, `${name}_${metadata.namespace}(${uid})`),
    };
  });
}

function podStatus(rollout: Rollout, containers: Loose[], podRef: string): Loose {
  const status = (container: Loose, state: Loose, extra: Loose = {}) => ({
    name: container.name,
    image: container.image,
    ready: rollout === 'available',
    restartCount: 0,
    state,
    ...extra,
  });
  if (rollout === 'available') {
    const running = { running: { startedAt: '2026-11-27T12:00:00Z' } };
    return { phase: 'Running', containerStatuses: containers.map((c) => status(c, running)) };
  }
  if (typeof rollout === 'object' && 'crashLoop' in rollout) {
    return {
      phase: 'Running',
      containerStatuses: containers.map((c) =>
        status(
          c,
          {
            waiting: {
              reason: 'CrashLoopBackOff',
              message: `back-off 5m0s restarting failed container=${c.name} pod=${podRef}`,
            },
          },
          {
            restartCount: 7,
            lastState: { terminated: { exitCode: 1, reason: 'Error', message: rollout.crashLoop } },
          },
        ),
      ),
    };
  }
  if (typeof rollout === 'object' && 'imagePull' in rollout) {
    const waiting = { waiting: { reason: 'ImagePullBackOff', message: rollout.imagePull } };
    return { phase: 'Pending', containerStatuses: containers.map((c) => status(c, waiting)) };
  }
  const creating = { waiting: { reason: 'ContainerCreating' } };
  return { phase: 'Pending', containerStatuses: containers.map((c) => status(c, creating)) };
}

/** The Deployment with the status its controller would report for `rollout`. */
export function withDeploymentStatus(object: Loose, rollout: Rollout): Loose {
  const replicas = object.spec.replicas ?? 1;
  const ready = rollout === 'available' ? replicas : 0;
  const conditions: Loose[] = [
    {
      type: 'Available',
      status: ready > 0 || replicas === 0 ? 'True' : 'False',
      reason: ready > 0 || replicas === 0 ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      message: ready > 0 ? 'Deployment has minimum availability.' : 'Deployment does not have minimum availability.',
    },
    rollout === 'deadlineExceeded'
      ? {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: `ReplicaSet "${object.metadata.name}-${shortHash(object.spec.template, 10)}" has timed out progressing.`,
        }
      : { type: 'Progressing', status: 'True', reason: ready ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated' },
  ];
  if (typeof rollout === 'object' && 'replicaFailure' in rollout) {
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: rollout.replicaFailure,
    });
  }
  const created = podsOf(object, rollout).length;
  return {
    ...object,
    status: {
      observedGeneration: object.metadata.generation,
      replicas: created,
      updatedReplicas: created,
      readyReplicas: ready,
      availableReplicas: ready,
      unavailableReplicas: replicas - ready,
      conditions,
    },
  };
}
