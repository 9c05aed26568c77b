import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeApi, startKubeApi } from '../helpers/kube-api.js';
import { waitFor } from '../helpers/processes.js';
import { SGTM_AUTH, SGTM_CONFIG, type SgtmApp, startSgtmApp } from '../helpers/sgtm-app.js';

const NAMESPACE = 'tagport-sgtm';

// Runtime `sgtm` on the kubernetes driver when the orchestrator cannot be reached: the stand-in of the Kubernetes API
// serves a container until it is stopped, then every lifecycle action answers 503 in our error format.
describe('runtime sgtm on the kubernetes driver with the orchestrator unreachable', { timeout: 60_000 }, () => {
  let kube: KubeApi;
  let s: SgtmApp;
  let running: { id: string };
  const bodies: string[] = [];

  beforeAll(async () => {
    kube = await startKubeApi();
    s = await startSgtmApp('pglite', {
      gateway: false,
      config: { statusCheckMs: 1000 },
      taggingServers: { driver: 'kubernetes', kubeconfig: kube.writeKubeconfig(), command: null },
    });
    running = await s.createSgtm();
    await waitFor(
      async () => kube.objects('Deployment', NAMESPACE).length === 2,
      20_000,
      'the tagging and preview Deployments to be applied',
    );
    for (const deployment of kube.objects('Deployment', NAMESPACE))
      kube.setRollout(deployment.metadata.name, 'available');
    await s.until(running.id, 'running', { unless: ['failed'] });
    await kube.stop();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("shows the running container's tagging servers as unknown, with the reason", async () => {
    const shown = await s.api('GET', `/api/containers/${running.id}/`);
    bodies.push(shown.body);
    expect(shown.statusCode).toBe(200);
    expect(shown.json().tagging_server).toMatchObject({ driver: 'kubernetes', state: 'unknown' });
    expect(shown.json().tagging_server.reason).toEqual(expect.any(String));
    expect(shown.json().tagging_server.reason.length).toBeGreaterThan(0);
  });

  it('answers 503 orchestrator_unavailable with Retry-After to a change of settings.tagging_server', async () => {
    const answer = await s.api('PATCH', `/api/containers/${running.id}/`, {
      settings: { tagging_server: { min_replicas: 3 } },
    });
    bodies.push(answer.body);
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ error: { code: 'orchestrator_unavailable' } });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  });

  // A change answered 503 (retry later) must not be kept: it would never be rolled out.
  it('keeps settings.tagging_server as it was when the change answered 503', async () => {
    const answer = await s.api('PATCH', `/api/containers/${running.id}/`, {
      settings: { tagging_server: { min_replicas: 4 } },
    });
    expect(answer.statusCode).toBe(503);
    const shown = (await s.api('GET', `/api/containers/${running.id}/`)).json();
    expect(shown.settings.tagging_server.min_replicas).not.toBe(4);
  });

  it('answers 503 orchestrator_unavailable with Retry-After to a (rolling) restart', async () => {
    const answer = await s.api('POST', `/api/containers/${running.id}/restart/`);
    bodies.push(answer.body);
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ error: { code: 'orchestrator_unavailable' } });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect((await s.get(running.id)).status).toBe('running');
  });

  it('answers 503 orchestrator_unavailable to stop and delete, and the container stays running', async () => {
    for (const [method, path] of [
      ['POST', `/api/containers/${running.id}/stop/`],
      ['DELETE', `/api/containers/${running.id}/`],
    ] as const) {
      const answer = await s.api(method, path);
      bodies.push(answer.body);
      expect(answer.statusCode, path).toBe(503);
      expect(answer.json()).toMatchObject({ error: { code: 'orchestrator_unavailable' } });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await s.get(running.id)).status).toBe('running');
  });

  it('accepts a new sgtm container, which never gets running', async () => {
    const created = await s.createSgtm({ name: 'Created while unreachable' });
    const seen = new Set<string>();
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const shown = await s.api('GET', `/api/containers/${created.id}/`);
      bodies.push(shown.body);
      seen.add(shown.json().status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen.has('running')).toBe(false);
    expect([...seen].every((status) => ['provisioning', 'failed'].includes(status))).toBe(true);
  });

  it('shows the tagging servers degraded on the status page, saying why', async () => {
    const tagging = async () => {
      const answer = await s.app.inject({ method: 'GET', url: '/api/status.json' });
      bodies.push(answer.body);
      expect(answer.statusCode).toBe(200);
      return answer.json().components.find((c: { name: string }) => c.name === 'Tagging servers');
    };
    // The page shows the last self-check, run every second here.
    await waitFor(async () => (await tagging())?.status !== 'operational', 10_000, 'a self-check to see it');
    const component = await tagging();
    expect(component).toMatchObject({ status: 'degraded' });
    expect(component.detail).toContain('cannot be managed');
  });

  it('never puts the config string in an answer or a log line', () => {
    expect(bodies.length).toBeGreaterThan(4);
    expect(s.logs.length).toBeGreaterThan(0);
    for (const text of [...bodies, ...s.logs]) {
      expect(text).not.toContain(SGTM_CONFIG);
      expect(text).not.toContain(SGTM_AUTH);
    }
  });
});
