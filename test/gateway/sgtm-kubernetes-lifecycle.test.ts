import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeApi, startKubeApi } from '../helpers/kube-api.js';
import { waitFor } from '../helpers/processes.js';
import { type SgtmApp, startSgtmApp } from '../helpers/sgtm-app.js';

const NAMESPACE = 'tagport-sgtm';

// Runtime `sgtm` on the kubernetes driver, through the API, against the stand-in of the Kubernetes API: the container
// follows the rollout, breaks down with Kubernetes' reason, and its objects go with it.
describe('an sgtm container on the kubernetes driver', { timeout: 60_000 }, () => {
  let kube: KubeApi;
  let s: SgtmApp;
  let id: string;
  const tagging = () =>
    kube
      .objects('Deployment', NAMESPACE)
      .find((deployment) => deployment.metadata.labels['tagport.io/role'] === 'tagging');

  beforeAll(async () => {
    kube = await startKubeApi();
    s = await startSgtmApp('pglite', {
      gateway: false,
      taggingServers: { driver: 'kubernetes', kubeconfig: kube.writeKubeconfig(), command: null },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await kube?.stop();
  });

  it('is provisioning while the rollout progresses and running once it is available', async () => {
    id = (await s.createSgtm({ settings: { tagging_server: { min_replicas: 2, max_replicas: 5 } } })).id;
    await waitFor(async () => kube.objects('Deployment', NAMESPACE).length === 2, 20_000, 'both Deployments');
    expect((await s.get(id)).status).toBe('provisioning');
    for (const deployment of kube.objects('Deployment', NAMESPACE))
      kube.setRollout(deployment.metadata.name, 'available');
    const running = await s.until(id, 'running', { unless: ['failed'] });
    expect(running.tagging_server).toMatchObject({ driver: 'kubernetes', state: 'available' });
    expect(running.tagging_server.replicas).toMatchObject({ min: 2, max: 5 });
    const hpa = kube.objects('HorizontalPodAutoscaler', NAMESPACE)[0];
    expect(hpa.spec).toMatchObject({ minReplicas: 2, maxReplicas: 5 });
  });

  it('becomes failed with the reason Kubernetes gives when its replicas crash-loop', async () => {
    kube.setRollout(tagging()!.metadata.name, { crashLoop: 'listen EADDRINUSE: address already in use :::8080' });
    await waitFor(
      async () => {
        await s.app.services.containerWorker.failBrokenTaggingServers();
        return (await s.get(id)).status === 'failed';
      },
      20_000,
      'the container to be failed',
    );
    expect((await s.get(id)).status_reason).toMatch(/CrashLoopBackOff/);
  });

  it('deletes its objects with it', async () => {
    expect((await s.api('DELETE', `/api/containers/${id}/`)).statusCode).toBe(202);
    await s.until(id, 'deleted');
    await waitFor(async () => kube.objects('Deployment', NAMESPACE).length === 0, 10_000, 'the objects to go');
    expect(kube.objects('Secret', NAMESPACE)).toEqual([]);
  });
});
