import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/processes.js';
import { alive } from '../helpers/tagging-servers.js';
import { SGTM_GTM_ID, type SgtmApp, startSgtmApp, waitNoneAlive } from '../helpers/sgtm-app.js';

// A container moves between runtimes and keeps its hostname and loader path; `/healthz` follows its replicas.
describe('an sgtm container switching runtimes, and its health', { timeout: 60_000 }, () => {
  let s: SgtmApp;
  let id: string;
  let host: string;
  let loaderPath: string;

  beforeAll(async () => {
    // No delay between transition steps (allowed): waiting on tagging servers must still poll, not spin.
    s = await startSgtmApp('pglite', { config: { containerTransitionDelayMs: 0 } });
    const created = await s.api('POST', '/api/containers/', {
      name: 'Switcher',
      region: 'eu-central',
      config: Buffer.from(`id=${SGTM_GTM_ID}&env=3&auth=SwitchAuthValue1`).toString('base64'),
    });
    expect(created.statusCode, created.body).toBe(201);
    ({ id, default_hostname: host } = created.json());
    loaderPath = created.json().settings.loader_path;
    await s.until(id, 'running', { unless: ['failed'] });
  }, 60_000);
  afterAll(() => s?.close());

  it('moves a running builtin container to sgtm: starting, then running on its replicas with the same loader path', async () => {
    const changed = await s.api('PATCH', `/api/containers/${id}/`, { runtime: 'sgtm' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ status: 'starting', runtime: 'sgtm' });
    const running = await s.until(id, 'running', { unless: ['failed'] });
    expect(running.settings.loader_path).toBe(loaderPath);
    expect(running.default_hostname).toBe(host);
    const health = await s.https(host, '/healthz');
    expect(health.status).toBe(200);
    const loader = await s.https(host, `/${loaderPath}.js?id=${SGTM_GTM_ID}`);
    expect(loader.status).toBe(200);
    expect(loader.body).toContain(SGTM_GTM_ID);
  });

  it('answers /healthz 503 no_ready_replicas while none of its replicas is ready', async () => {
    const pids = s.pids(id, 'tagging');
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      await waitFor(async () => (await s.https(host, '/healthz')).status === 503, 15_000, 'the health check to fail');
      const health = await s.https(host, '/healthz');
      expect(JSON.parse(health.body).error.code).toBe('no_ready_replicas');
    } finally {
      // The supervisor may have replaced some already (three failed checks): those are gone.
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGCONT');
    }
    await waitFor(async () => (await s.https(host, '/healthz')).status === 200, 20_000, 'the replicas to be back');
  });

  it('moves back to builtin: the replicas are gone, the gateway serves it itself with the same loader path', async () => {
    const pids = s.pids(id);
    expect(pids.length).toBeGreaterThan(0);
    const changed = await s.api('PATCH', `/api/containers/${id}/`, { runtime: 'builtin' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ status: 'running', runtime: 'builtin', tagging_server: null });
    await waitNoneAlive(pids);
    const health = await s.https(host, '/healthz');
    expect(health.status).toBe(200);
    expect((await s.get(id)).settings.loader_path).toBe(loaderPath);
  });
});
