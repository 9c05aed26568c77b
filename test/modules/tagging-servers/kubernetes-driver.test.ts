import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesOrchestrator } from '../../../src/modules/tagging-servers/kubernetes-driver.js';
import { type KubeApi, startKubeApi } from '../../helpers/kube-api.js';
import {
  CONFIG,
  IMAGE,
  lastRequest,
  makeAvailable,
  NAMESPACE,
  nameOf,
  podsOf,
  specFor,
} from '../../helpers/kube-fixtures.js';

// The kubernetes driver through the real client library (@kubernetes/client-node) against a stand-in API server
// that validates every object it is given against the official schemas and plays the Deployment controller:
// the objects it applies and the lifecycle. Logs, endpoints and errors: kubernetes-driver-errors.test.ts.

let kube: KubeApi;
let driver: KubernetesOrchestrator;

beforeAll(async () => {
  kube = await startKubeApi();
  driver = new KubernetesOrchestrator({ kubeConfig: kube.kubeConfig(), namespace: NAMESPACE, imageRepository: IMAGE });
});
afterAll(() => kube?.stop());

describe('apply', () => {
  it('creates the Secret, then the Deployments, autoscaler, budget and Services it owns, all valid', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    await driver.apply(spec);

    const secret = kube.object('Secret', NAMESPACE, name);
    expect(Buffer.from(secret.data.CONTAINER_CONFIG, 'base64').toString()).toBe(CONFIG);
    const owned = [
      kube.object('Deployment', NAMESPACE, name),
      kube.object('Deployment', NAMESPACE, `${name}-preview`),
      kube.object('Service', NAMESPACE, name),
      kube.object('Service', NAMESPACE, `${name}-preview`),
      kube.object('HorizontalPodAutoscaler', NAMESPACE, name),
      kube.object('PodDisruptionBudget', NAMESPACE, name),
    ];
    for (const object of [secret, ...owned]) {
      expect(object.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'gtm-tagging-server',
        'app.kubernetes.io/managed-by': 'tagport',
        'tagport.io/tenant': spec.tenantId,
        'tagport.io/container': spec.containerId,
      });
    }
    for (const object of owned) {
      expect(object.metadata.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'Secret', name, uid: secret.metadata.uid },
      ]);
    }
    // Seven applies, each accepted (the stand-in answers 422 to what the schemas refuse, and apply would throw), the
    // Secret's first: its uid had to exist before anything could name it as owner.
    const applied = kube.requests.filter((r) => r.method === 'PATCH' && r.path.includes(name));
    expect(applied).toHaveLength(7);
    expect(applied[0].path).toBe(`/api/v1/namespaces/${NAMESPACE}/secrets/${name}`);
    for (const request of applied) {
      expect(request.contentType).toBe('application/apply-patch+yaml');
      expect(request.query.get('fieldManager')).toBe('tagport');
      expect(request.query.get('force')).toBe('true');
    }
  });

  it('runs the image at the version with the documented environment, probes and resources', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    await driver.apply(spec);

    const tagging = kube.object('Deployment', NAMESPACE, name);
    expect(tagging.metadata.labels['tagport.io/role']).toBe('tagging');
    expect(tagging.spec.replicas).toBe(2);
    expect(tagging.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    const container = tagging.spec.template.spec.containers[0];
    expect(container.image).toBe(`${IMAGE}:2.4.0`);
    expect(container.env).toEqual([
      { name: 'CONTAINER_CONFIG', valueFrom: { secretKeyRef: { name, key: 'CONTAINER_CONFIG' } } },
      { name: 'PORT', value: '8080' },
      { name: 'PREVIEW_SERVER_URL', value: 'https://preview.example.test' },
    ]);
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe.httpGet).toMatchObject({ path: '/healthz', port: 8080 });
    }
    const quantities = { cpu: '250m', memory: '512Mi' };
    expect(container.resources).toEqual({ requests: quantities, limits: quantities });

    const preview = kube.object('Deployment', NAMESPACE, `${name}-preview`);
    expect(preview.metadata.labels['tagport.io/role']).toBe('preview');
    expect(preview.spec.replicas).toBe(1);
    expect(preview.spec.template.spec.containers[0].env).toContainEqual({
      name: 'RUN_AS_PREVIEW_SERVER',
      value: 'true',
    });
    expect(preview.spec.template.spec.containers[0].env.map((e: any) => e.name)).not.toContain('PREVIEW_SERVER_URL');

    const autoscaler = kube.object('HorizontalPodAutoscaler', NAMESPACE, name);
    expect(autoscaler.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      maxReplicas: 5,
    });
    expect(kube.object('PodDisruptionBudget', NAMESPACE, name).spec.maxUnavailable).toBe(1);
    expect(kube.object('Service', NAMESPACE, name).spec).toMatchObject({
      selector: { 'tagport.io/container': spec.containerId, 'tagport.io/role': 'tagging' },
      ports: [{ port: 8080, targetPort: 'http' }],
    });
  });

  it('puts the config string in the Secret only: no other object, request or error carries it', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const withoutSecrets = JSON.stringify(
      ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget'].flatMap((kind) =>
        kube.objects(kind, NAMESPACE),
      ),
    );
    expect(withoutSecrets).toContain(spec.containerId);
    expect(withoutSecrets).not.toContain(CONFIG);
    expect(withoutSecrets).not.toContain(Buffer.from(CONFIG).toString('base64'));
    const bodies = kube.requests.filter((r) => r.body && !r.path.includes('/secrets/')).map((r) => r.body);
    expect(bodies.join('\n')).not.toContain(CONFIG);
  });

  it('applying the same spec twice changes nothing', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const before = kube.object('Deployment', NAMESPACE, nameOf(spec));
    await driver.apply(spec);
    const after = kube.object('Deployment', NAMESPACE, nameOf(spec));
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.generation).toBe(before.metadata.generation);
  });
});

describe('the stand-in refuses what Kubernetes would refuse', () => {
  async function applyRaw(object: any) {
    const url = `${kube.url}/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${object.metadata.name}?fieldManager=test`;
    const response = await fetch(url, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${kube.token}`, 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify(object),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('answers 422 Invalid for a Deployment the schema rejects', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const deployment = structuredClone(kube.object('Deployment', NAMESPACE, nameOf(spec)));
    delete deployment.status;
    delete deployment.spec.template.spec.containers[0].name;
    deployment.spec.replicas = 'two';

    const { status, body } = await applyRaw(deployment);
    expect(status).toBe(422);
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(body.message).toContain('spec.replicas: must be integer');
    expect(body.message).toContain('must have required property');
    expect(kube.object('Deployment', NAMESPACE, nameOf(spec)).spec.replicas).toBe(2);
  });

  it('answers 422 for a selector that does not match the pod template, as the API server checks', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const deployment = structuredClone(kube.object('Deployment', NAMESPACE, nameOf(spec)));
    delete deployment.status;
    deployment.spec.selector.matchLabels['tagport.io/role'] = 'preview';
    const { status, body } = await applyRaw(deployment);
    expect(status).toBe(422);
    expect(body.message).toContain('`selector` does not match template `labels`');
  });
});

describe('observe', () => {
  it('follows the rollout: progressing, available, then a crash loop is failed with Kubernetes’ reason', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    expect((await driver.observe(spec.containerId)).phase).toBe('absent');
    await driver.apply(spec);

    expect(await driver.observe(spec.containerId)).toEqual({
      phase: 'progressing',
      reason: null,
      replicas: { ready: 0, desired: 2, min: 2, max: 5 },
      version: '2.4.0',
    });

    kube.setRollout(name, 'available');
    expect((await driver.observe(spec.containerId)).phase).toBe('progressing'); // the preview server is not ready yet
    kube.setRollout(`${name}-preview`, 'available');
    expect(await driver.observe(spec.containerId)).toMatchObject({
      phase: 'available',
      replicas: { ready: 2, desired: 2 },
    });

    kube.setRollout(name, { crashLoop: 'invalid CONTAINER_CONFIG' });
    const failed = await driver.observe(spec.containerId);
    expect(failed.phase).toBe('failed');
    expect(failed.reason).toMatch(
      /^CrashLoopBackOff: back-off 5m0s restarting failed container=gtm-cloud-image pod=sgtm-/,
    );
    expect(failed.reason).toContain('last termination: invalid CONTAINER_CONFIG');
  });

  it('an image that cannot be pulled is failed with the pull error', async () => {
    const spec = specFor({ version: '9.9.9-missing' });
    await driver.apply(spec);
    const message = `Back-off pulling image "${IMAGE}:9.9.9-missing"`;
    kube.setRollout(`${nameOf(spec)}-preview`, { imagePull: message });
    expect(await driver.observe(spec.containerId)).toMatchObject({
      phase: 'failed',
      reason: `ImagePullBackOff: ${message}`,
      version: '9.9.9-missing',
    });
  });

  it('a Deployment past its progress deadline, or whose pods cannot be created, is failed with its condition', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    await driver.apply(spec);
    kube.setRollout(name, 'deadlineExceeded');
    expect((await driver.observe(spec.containerId)).reason).toMatch(
      /^ProgressDeadlineExceeded: ReplicaSet "sgtm-.*" has timed out progressing\.$/,
    );
    kube.setRollout(name, { replicaFailure: 'pods "x" is forbidden: exceeded quota: compute' });
    expect((await driver.observe(spec.containerId)).reason).toBe(
      'FailedCreate: pods "x" is forbidden: exceeded quota: compute',
    );
  });
});

describe('lifecycle', () => {
  it('stop deletes the autoscaler and scales both Deployments to zero; apply brings them back', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    await driver.apply(spec);
    makeAvailable(kube, spec);

    await driver.stop(spec.containerId);
    expect(kube.object('HorizontalPodAutoscaler', NAMESPACE, name)).toBeUndefined();
    expect(kube.object('Deployment', NAMESPACE, name).spec.replicas).toBe(0);
    expect(kube.object('Deployment', NAMESPACE, `${name}-preview`).spec.replicas).toBe(0);
    expect([...podsOf(kube, spec), ...podsOf(kube, spec, 'preview')]).toEqual([]);
    expect(await driver.observe(spec.containerId)).toEqual({
      phase: 'stopped',
      reason: null,
      replicas: { ready: 0, desired: 0, min: 2, max: 5 },
      version: '2.4.0',
    });

    await driver.apply(spec);
    expect(kube.object('Deployment', NAMESPACE, name).spec.replicas).toBe(2);
    expect(kube.object('HorizontalPodAutoscaler', NAMESPACE, name)).toBeDefined();
    expect((await driver.observe(spec.containerId)).phase).toBe('available');
  });

  it('an upgrade is an apply with another version: the image changes and new pods roll in', async () => {
    const spec = specFor();
    const name = nameOf(spec);
    await driver.apply(spec);
    const podsBefore = podsOf(kube, spec).map((p) => p.metadata.name);

    await driver.apply({ ...spec, version: '2.5.0' });
    const deployment = kube.object('Deployment', NAMESPACE, name);
    expect(deployment.spec.template.spec.containers[0].image).toBe(`${IMAGE}:2.5.0`);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(deployment.metadata.generation).toBe(2);
    const podsAfter = podsOf(kube, spec).map((p) => p.metadata.name);
    expect(podsAfter).toHaveLength(2);
    expect(podsAfter.filter((pod) => podsBefore.includes(pod))).toEqual([]);
    expect((await driver.observe(spec.containerId)).version).toBe('2.5.0');
  });

  it('restart sets kubectl’s restartedAt annotation on both pod templates, which replaces the pods', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const podsBefore = podsOf(kube, spec, 'preview').map((p) => p.metadata.name);
    const startedAt = Date.now();
    await driver.restart(spec.containerId);
    for (const deployment of [nameOf(spec), `${nameOf(spec)}-preview`]) {
      const { annotations } = kube.object('Deployment', NAMESPACE, deployment).spec.template.metadata;
      expect(Date.parse(annotations['kubectl.kubernetes.io/restartedAt'])).toBeGreaterThanOrEqual(startedAt - 1000);
    }
    expect(lastRequest(kube, 'PATCH')?.contentType).toBe('application/merge-patch+json');
    expect(podsOf(kube, spec, 'preview').map((p) => p.metadata.name)).not.toEqual(podsBefore);
    // A later apply leaves the annotation (it belongs to the restart, not to the applied configuration).
    await driver.apply(spec);
    const template = kube.object('Deployment', NAMESPACE, nameOf(spec)).spec.template;
    expect(template.metadata.annotations).toHaveProperty('kubectl.kubernetes.io/restartedAt');
  });

  it('remove deletes the Secret in the background and the garbage collector takes the rest', async () => {
    const spec = specFor();
    await driver.apply(spec);
    const other = specFor();
    await driver.apply(other);

    await driver.remove(spec.containerId);
    const deletion = lastRequest(kube, 'DELETE');
    expect(deletion?.path).toBe(`/api/v1/namespaces/${NAMESPACE}/secrets/${nameOf(spec)}`);
    expect(deletion?.query.get('propagationPolicy')).toBe('Background');
    for (const kind of ['Secret', 'Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Pod']) {
      const left = kube
        .objects(kind, NAMESPACE)
        .filter((o) => o.metadata.labels['tagport.io/container'] === spec.containerId);
      expect(left, kind).toEqual([]);
    }
    expect(await driver.observe(spec.containerId)).toMatchObject({ phase: 'absent' });
    expect(kube.object('Deployment', NAMESPACE, nameOf(other))).toBeDefined();
    await driver.remove(spec.containerId); // nothing left: still fine
  });
});
