import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesOrchestrator } from '../../../src/modules/tagging-servers/kubernetes-driver.js';
import { OrchestratorUnavailableError } from '../../../src/modules/tagging-servers/orchestrator.js';
import { type KubeApi, startKubeApi } from '../../helpers/kube-api.js';
import { CONFIG, IMAGE, makeAvailable, NAMESPACE, nameOf, podsOf, specFor } from '../../helpers/kube-fixtures.js';

// The kubernetes driver's logs, endpoints and errors (unreachable, slow, refusing API server), through the real
// client library against the stand-in API server. The objects and lifecycle: kubernetes-driver.test.ts.

let kube: KubeApi;
let driver: KubernetesOrchestrator;

beforeAll(async () => {
  kube = await startKubeApi();
  driver = new KubernetesOrchestrator({ kubeConfig: kube.kubeConfig(), namespace: NAMESPACE, imageRepository: IMAGE });
});
afterAll(() => kube?.stop());

describe('logs and endpoints', () => {
  it('returns each pod’s last lines, timestamped, oldest first', async () => {
    const spec = specFor({ replicas: { min: 1, max: 3 } });
    await driver.apply(spec);
    makeAvailable(kube, spec);
    const [tagging] = podsOf(kube, spec);
    const [preview] = podsOf(kube, spec, 'preview');
    kube.addLogLines(tagging.metadata.name, ['old line', 'Listening on port 8080']);
    kube.addLogLines(preview.metadata.name, ['preview ready']);
    kube.addLogLines(tagging.metadata.name, ['GET /g/collect 200']);

    const lines = await driver.logs(spec.containerId, { lines: 2 });
    expect(lines.map(({ replica, line }) => [replica, line])).toEqual([
      [tagging.metadata.name, 'Listening on port 8080'],
      [preview.metadata.name, 'preview ready'],
      [tagging.metadata.name, 'GET /g/collect 200'],
    ]);
    expect(lines.every((l) => l.stream === 'stdout' && /^\d{4}-\d\d-\d\dT.*Z$/.test(l.at))).toBe(true);
    const logRequest = kube.requests.find((r) => r.path.endsWith('/log'));
    expect(logRequest?.query.get('timestamps')).toBe('true');
    expect(logRequest?.query.get('tailLines')).toBe('2');
  });

  it('a pod still starting has no log yet and adds no line', async () => {
    const spec = specFor();
    await driver.apply(spec);
    expect(await driver.logs(spec.containerId, { lines: 10 })).toEqual([]);
  });

  it('names the Services by their cluster DNS names', async () => {
    const spec = specFor();
    expect(await driver.endpoints(spec.containerId)).toEqual({
      tagging: [`http://${nameOf(spec)}.${NAMESPACE}.svc.cluster.local:8080`],
      preview: [`http://${nameOf(spec)}-preview.${NAMESPACE}.svc.cluster.local:8080`],
    });
  });
});

describe('errors', () => {
  it('a 5xx from the API server is OrchestratorUnavailableError; another 4xx a plain Error with its Status message', async () => {
    const spec = specFor();
    kube.failNext(500, 'etcdserver: request timed out');
    const unavailable = await driver.apply(spec).catch((error) => error);
    expect(unavailable).toBeInstanceOf(OrchestratorUnavailableError);
    expect(unavailable.message).toContain(kube.url);
    expect(unavailable.message).toContain('etcdserver: request timed out');

    kube.failNext(
      403,
      `secrets "${nameOf(spec)}" is forbidden: User "system:serviceaccount:tagport:tagport" cannot patch`,
    );
    const forbidden = await driver.apply(spec).catch((error) => error);
    expect(forbidden).not.toBeInstanceOf(OrchestratorUnavailableError);
    expect(forbidden.message).toContain('answered 403: secrets');
    expect(forbidden.message).toContain('cannot patch');
  });

  it('never repeats the config string, even when the API server echoes it', async () => {
    const spec = specFor();
    await driver.observe(spec.containerId); // discovery done: the next request is the Secret's apply
    kube.failNext(422, `Secret "x" is invalid: data[CONTAINER_CONFIG]: Invalid value: "${CONFIG}"`);
    const error = await driver.apply(spec).catch((e) => e);
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(CONFIG);
    expect(JSON.stringify(error)).not.toContain(CONFIG);
  });

  it('an API server that does not answer in time is unavailable', async () => {
    const slow = new KubernetesOrchestrator({
      kubeConfig: kube.kubeConfig(),
      namespace: NAMESPACE,
      imageRepository: IMAGE,
      requestTimeoutMs: 300,
    });
    kube.hangNext();
    const error = await slow.observe(specFor().containerId).catch((e) => e);
    expect(error).toBeInstanceOf(OrchestratorUnavailableError);
    expect(error.message).toContain('timed out');
  });

  it('a stopped API server is OrchestratorUnavailableError naming it, from a kubeconfig file too', async () => {
    const own = await startKubeApi();
    const fromFile = KubernetesOrchestrator.fromSource({
      kubeConfig: { file: own.writeKubeconfig() },
      namespace: NAMESPACE,
      imageRepository: IMAGE,
    });
    const spec = specFor();
    await fromFile.apply(spec);
    expect(own.object('Secret', NAMESPACE, nameOf(spec))).toBeDefined();

    await own.stop();
    for (const action of [
      () => fromFile.apply(spec),
      () => fromFile.observe(spec.containerId),
      () => fromFile.stop(spec.containerId),
    ]) {
      const error = await action().catch((e) => e);
      expect(error).toBeInstanceOf(OrchestratorUnavailableError);
      expect(error.message).toContain(own.url);
      expect(error.message).not.toContain(CONFIG);
    }
  });
});
