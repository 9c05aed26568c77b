import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { waitFor } from '../helpers/processes.js';
import { noneAlive, SGTM_AUTH, SGTM_CONFIG, type SgtmApp, startSgtmApp, waitNoneAlive } from '../helpers/sgtm-app.js';
import { alive } from '../helpers/tagging-servers.js';

/** Nothing the app logged, nor these answers, carries the config string or its auth secret. */
function expectNoSecret(s: SgtmApp, ...bodies: string[]) {
  for (const text of [...s.logs, ...bodies]) {
    expect(text).not.toContain(SGTM_CONFIG);
    expect(text).not.toContain(SGTM_AUTH);
  }
}

// The lifecycle of an `sgtm` container on the process driver, through the API, with the replicas' processes checked
// with the kernel (the gateway does not listen: nothing here goes through it).
for (const backend of backends) {
  describe(`an sgtm container's lifecycle on the process driver (${backend})`, { timeout: 60_000 }, () => {
    let s: SgtmApp | undefined;
    let id: string;
    const app = () => s as SgtmApp;
    const ready = async (count: number) =>
      waitFor(
        async () => (await app().get(id)).tagging_server.replicas.ready === count,
        20_000,
        `${count} ready replicas`,
      );

    beforeAll(async () => {
      s = await startSgtmApp(backend, { gateway: false });
      id = (await s.createSgtm()).id;
      await s.until(id, 'running', { unless: ['failed'] });
      await ready(2);
    }, 60_000);
    afterAll(async () => {
      await s?.close();
    });

    it('stop leaves no replica process; start brings three new ones (two tagging, one preview)', async () => {
      const before = app().pids(id);
      expect(before).toHaveLength(3);
      for (const pid of before) expect(alive(pid)).toBe(true);

      expect((await app().api('POST', `/api/containers/${id}/stop/`)).statusCode).toBe(202);
      const stopped = await app().until(id, 'stopped', { unless: ['failed'] });
      expect(stopped.tagging_server).toMatchObject({ state: 'stopped', replicas: { ready: 0 } });
      await waitNoneAlive(before);
      expect(app().pids(id)).toEqual([]);
      for (const pid of before) expect(() => process.kill(pid, 0)).toThrow();

      expect((await app().api('POST', `/api/containers/${id}/start/`)).statusCode).toBe(202);
      await app().until(id, 'running', { unless: ['failed'] });
      await ready(2);
      const after = app().pids(id);
      expect(after).toHaveLength(3);
      expect(after.filter((pid) => before.includes(pid))).toEqual([]);
      for (const pid of after) expect(alive(pid)).toBe(true);
    });

    it('restart replaces every tagging replica one by one: the container stays running, one replica always serving', async () => {
      const before = app().pids(id, 'tagging');
      expect(before).toHaveLength(2);
      const answer = await app().api('POST', `/api/containers/${id}/restart/`);
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      const seen = new Set<string>();
      let leastServing = Number.POSITIVE_INFINITY;
      const watch = setInterval(() => {
        leastServing = Math.min(leastServing, app().pids(id, 'tagging', 'ready').length);
      }, 10);
      try {
        await waitFor(
          async () => {
            const shown = await app().get(id);
            seen.add(shown.status);
            const pids = app().pids(id, 'tagging', 'ready');
            return (
              pids.length === 2 && pids.every((pid) => !before.includes(pid)) && before.every((pid) => !alive(pid))
            );
          },
          30_000,
          'the rollout restart to replace both tagging replicas',
        );
      } finally {
        clearInterval(watch);
      }
      expect([...seen]).toEqual(['running']);
      expect(leastServing).toBeGreaterThanOrEqual(1);
      await ready(2);
    });

    // While a rolling restart replaces them, the old generation still serves: the API must say so.
    it('shows at least one ready tagging replica while a rolling restart replaces them', async () => {
      const answer = await app().api('POST', `/api/containers/${id}/restart/`);
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      const shown: { ready: number; state: string; serving: number }[] = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const status = (await app().get(id)).tagging_server;
        shown.push({
          ready: status.replicas.ready,
          state: status.state,
          serving: app().pids(id, 'tagging', 'ready').length,
        });
        if (shown.length > 3 && status.replicas.ready === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await ready(2);
      expect(shown.filter(({ ready, serving }) => serving >= 1 && ready === 0)).toEqual([]);
      expect(shown.filter(({ state }) => state !== 'available')).toEqual([]);
    });

    it("keeps the replicas' output in the tagging server logs, without the config", async () => {
      const answer = await app().api('GET', `/api/containers/${id}/tagging-server/logs/?lines=50`);
      expect(answer.statusCode).toBe(200);
      const lines = answer.json().lines as { replica: string; line: string }[];
      expect(lines.some((line) => /^tagging-\d+$/.test(line.replica) && line.line.includes('listening'))).toBe(true);
      expect(lines.some((line) => line.replica.startsWith('preview') && line.line.includes('preview server'))).toBe(
        true,
      );
      expectNoSecret(app(), answer.body);
    });

    it('delete ends as deleted with no replica process left', async () => {
      const before = app().pids(id);
      expect(before.length).toBeGreaterThan(0);
      expect((await app().api('DELETE', `/api/containers/${id}/`)).statusCode).toBeLessThan(300);
      await app().until(id, 'deleted', { unless: ['failed'] });
      await waitNoneAlive(before);
      await waitFor(async () => app().pids(id).length === 0, 5_000, 'the supervisor to let the replicas go');
    });

    it("stopping the app's services leaves no replica process behind", async () => {
      const other = await app().createSgtm({ name: 'Second', settings: { tagging_server: { min_replicas: 1 } } });
      await app().until(other.id, 'running', { unless: ['failed'] });
      const pids = app().pids(other.id);
      expect(pids).toHaveLength(2);
      expectNoSecret(app());
      const closing = app();
      s = undefined;
      await closing.close();
      expect(noneAlive(pids)).toBe(true);
    });
  });
}

describe('an sgtm container whose tagging server refuses its config', { timeout: 60_000 }, () => {
  let s: SgtmApp;
  beforeAll(async () => {
    // Our API accepts the config; the stand-in is started without it (as a tagging server given a config it cannot
    // use), so it refuses with its own message and exits 1 at every start.
    s = await startSgtmApp('pglite', {
      gateway: false,
      command: (standin) => standin.replace('/usr/bin/env ', '/usr/bin/env -u CONTAINER_CONFIG '),
      taggingServers: { startTimeoutMs: 20_000 },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("ends failed with the tagging server's message in status_reason, never running", async () => {
    const { id } = await s.createSgtm();
    const seen = new Set<string>();
    let shown: Record<string, any> = {};
    await waitFor(
      async () => {
        shown = await s.get(id);
        seen.add(shown.status);
        return shown.status === 'failed';
      },
      30_000,
      'the container to be failed',
    );
    expect(seen.has('running')).toBe(false);
    expect(shown.status_reason).toContain('Invalid CONTAINER_CONFIG: it is not set');
    // It stays failed (the supervisor's restarts do not make it running).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await s.get(id)).status).toBe('failed');
    expectNoSecret(s, JSON.stringify(shown));
  });
});

describe('runtime sgtm where it cannot run, and replica bounds', () => {
  let off: SgtmApp;
  let on: SgtmApp;
  beforeAll(async () => {
    [off, on] = await Promise.all([
      startSgtmApp('pglite', { gateway: false, command: null }),
      startSgtmApp('pglite', { gateway: false }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });
  const payload = (taggingServer: object, config = SGTM_CONFIG) => ({
    name: 'Shop',
    region: 'eu-central',
    config,
    runtime: 'sgtm',
    settings: { tagging_server: taggingServer },
  });

  it('refuses sgtm without SGTM_COMMAND: 400 runtime_unavailable saying how to enable it', async () => {
    const answer = await off.api('POST', '/api/containers/', payload({ min_replicas: 2 }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'runtime_unavailable' } });
    expect(answer.body).toContain('SGTM_COMMAND');
    expect((await off.api('GET', '/api/containers/')).json().data ?? []).toEqual([]);
    // A builtin container is still fine there, and cannot be switched to sgtm either.
    const builtin = await off.api('POST', '/api/containers/', { name: 'B', region: 'eu-central', config: SGTM_CONFIG });
    expect(builtin.statusCode).toBe(201);
    const switched = await off.api('PATCH', `/api/containers/${builtin.json().id}/`, { runtime: 'sgtm' });
    expect(switched.statusCode).toBe(400);
    expect(switched.json()).toMatchObject({ error: { code: 'runtime_unavailable' } });
  });

  it('refuses max_replicas above the plan with 402 plan_limit_reached, and min above max with 400 invalid_replicas', async () => {
    const above = await on.api('POST', '/api/containers/', payload({ max_replicas: 11 }));
    expect(above.statusCode).toBe(402);
    expect(above.json()).toMatchObject({ error: { code: 'plan_limit_reached' } });
    const inverted = await on.api('POST', '/api/containers/', payload({ min_replicas: 3, max_replicas: 2 }));
    expect(inverted.statusCode).toBe(400);
    expect(inverted.json()).toMatchObject({
      error: { code: 'invalid_replicas', param: 'settings.tagging_server.min_replicas' },
    });
    // Within bounds it is accepted (the plan allows 10).
    const fine = await on.api('POST', '/api/containers/', payload({ min_replicas: 1, max_replicas: 10 }));
    expect(fine.statusCode).toBe(201);
    const malformed = await on.api('POST', '/api/containers/', payload({ min_replicas: 1 }, 'not a config!'));
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: { code: 'invalid_config', param: 'config' } });
  });
});
