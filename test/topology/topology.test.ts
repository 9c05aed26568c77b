import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openConfiguredDatabase } from '../../src/process-start.js';
import { createServices } from '../../src/services.js';
import { CONFIG } from '../helpers/gateway-app.js';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { redisServerPath, startRedis, waitFor } from '../helpers/processes.js';
import {
  startReceiver,
  startSite,
  startTaggingServer,
  startTagport,
  stopAll,
  type TagportProcess,
} from '../helpers/topology.js';

/**
 * The deployment of README "Roles" with real processes on loopback: a private PostgreSQL cluster and Redis, two
 * `api`, one `gateway` and two `worker` processes of `tagport serve --role …`. Everything is driven through the
 * public API (and the gateway's listener), so it holds whatever runs a job inside a worker.
 *
 * Scans run with the browser stage off (SCANNER_CHROMIUM_PATH points nowhere: the stage reports `failed` and the
 * static fetch stage decides the result), which keeps the file fast on two cores and leaves no Chromium behind a
 * worker that is killed. The browser stage itself is covered by test/scanner and `npm run bench`.
 */

type Json = any;
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Json;
}

/** A request on a fresh connection (no keep-alive reuse), as a load balancer's retry logic would see it. */
async function call(base: string, method: string, path: string, token: string | null, body?: object) {
  const response = await request(`${base}${path}`, {
    method: method as 'GET',
    reset: true,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.body.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.statusCode, headers: response.headers, body: parsed } as Answer;
}

/**
 * The process never read the request: its listener was closed (refused), or the connection was still in the accept
 * queue or not yet read when the stopping server closed it (reset; requests already being read are answered).
 */
const refused = (error: unknown) => {
  const { code, cause } = error as { code?: string; cause?: { code?: string } };
  return [code, cause?.code].some((value) => value === 'ECONNREFUSED' || value === 'ECONNRESET');
};

describe.runIf(postgresBinDir && redisServerPath)('topology: 2 api, 1 gateway, 2 worker processes', () => {
  const started = new Set<TagportProcess>();
  let pg: PostgresCluster;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let site: Awaited<ReturnType<typeof startSite>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let apis: TagportProcess[];
  let gateway: TagportProcess;
  let workers: TagportProcess[];
  let container: { id: string; default_hostname: string };
  let monitorId: string;
  let webhookId: string;
  /** Scans the test asked for, and what each must end as. */
  const scans = new Map<string, 'completed' | 'failed'>();
  const caFile = path.resolve('.tmp', `topology-ca-${process.pid}.pem`);

  /** An API call to the first api process: a client moves on only when one the test is stopping refuses it. */
  async function api(method: string, path: string, body?: object, options: { via?: TagportProcess } = {}) {
    const targets = options.via ? [options.via] : apis;
    for (const target of targets) {
      try {
        return await call(target.base, method, path, token, body);
      } catch (error) {
        if (!(refused(error) && target.leaving) || target === targets.at(-1)) throw error;
      }
    }
    throw new Error('no api process');
  }

  async function scanState(id: string) {
    return (await api('GET', `/api/v1/tracking-checker/scans/${id}/`)).body;
  }

  async function enqueueScan(url: string, expected: 'completed' | 'failed' = 'completed', via = apis[0]) {
    const response = await request(`${via.base}/api/v1/tracking-checker/scan/`, {
      method: 'POST',
      reset: true,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ url }),
    });
    const body = (await response.body.json()) as Json;
    expect(response.statusCode, JSON.stringify(body)).toBe(202);
    expect(response.headers.location).toBe(`/api/v1/tracking-checker/scans/${body.scan_id}/`);
    scans.set(body.scan_id, expected);
    return body.scan_id as string;
  }

  async function scanEnded(id: string, timeoutMs = 30_000) {
    let state: Json;
    await waitFor(
      async () => {
        state = await scanState(id);
        return state.status === 'completed' || state.status === 'failed';
      },
      timeoutMs,
      `scan ${id} to end`,
    );
    return state;
  }

  async function containerStatus(status: string) {
    await waitFor(
      async () => (await api('GET', `/api/containers/${container.id}/`)).body.status === status,
      20_000,
      `container ${status}`,
    );
  }

  async function throughGateway(base: string, path = '/g/collect?v=2') {
    const response = await request(`${base}${path}`, { headers: { host: container.default_hostname }, reset: true });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() } as Answer;
  }

  async function gatewayServes(expected: number) {
    await waitFor(
      async () => (await throughGateway(gateway.gatewayUrl!)).status === expected,
      20_000,
      `gateway answering ${expected}`,
    );
  }

  async function checksOfMonitor(): Promise<Json[]> {
    return (await api('GET', `/api/monitors/${monitorId}/checks/?limit=100`)).body.results;
  }

  const answeredFor = (path: string, eventId: string) =>
    receiver.deliveries.filter((d) => d.path === path && d.eventId === eventId && d.answered);
  const eventsOfScan = (scanId: string, type: string) =>
    receiver.deliveries.filter((d) => d.path === '/all' && d.type === type && d.data.scan_id === scanId);

  beforeAll(async () => {
    fs.mkdirSync(path.dirname(caFile), { recursive: true });
    [pg, redis, site, receiver, tagging] = await Promise.all([
      startPostgresCluster('topology'),
      startRedis(),
      startSite(caFile),
      startReceiver(),
      startTaggingServer(1_500),
    ]);
    env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      COOKIE_SECRET: 'topology-test-cookie-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      NODE_EXTRA_CA_CERTS: caFile,
      ALLOW_PRIVATE_NETWORKS: 'true',
      SCANNER_CHROMIUM_PATH: '/nonexistent/chromium',
      SCAN_TIMEOUT_MS: '20000',
      CONTAINER_TRANSITION_DELAY_MS: '0',
      GATEWAY_BASE_DOMAIN: 'containers.topology.test',
      GATEWAY_FLUSH_MS: '1000',
      JOB_POLL_MS: '500',
      JOB_SUPERVISE_SECONDS: '1',
      WEBHOOK_RETRY_BASE_MS: '200',
      SHUTDOWN_TIMEOUT_MS: '8000',
      DATABASE_POOL_SIZE: '4',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    // The tenants are made in this process (as test/helpers/app.ts does): a CLI run costs seconds of start-up each.
    const config = loadConfig(env, { runMigrations: true });
    const database = await openConfiguredDatabase(config);
    let agencyToken: string;
    let clientId: string;
    try {
      const services = createServices({ database, config });
      const agency = await services.tenants.create({ name: 'Topology Agency', plan: 'agency' });
      const client = await services.tenants.create({ name: 'Shop', plan: 'business', parentId: agency.id });
      clientId = client.id;
      agencyToken = (await services.apiKeys.create(agency.id, { name: 'ops', role: 'owner' })).token;
      token = (await services.apiKeys.create(client.id, { name: 'shop', role: 'owner' })).token;
    } finally {
      await database.close();
    }
    [apis, gateway, workers] = await Promise.all([
      Promise.all([startTagport('api-1', 'api', env, started), startTagport('api-2', 'api', env, started)]),
      startTagport('gateway-1', 'gateway', env, started),
      Promise.all([startTagport('worker-1', 'worker', env, started), startTagport('worker-2', 'worker', env, started)]),
    ]);
    // Checks every 10 s (the plan allows 30 s) keep the monitor busy within this file's time.
    const tenantPatch = await call(apis[0].base, 'PATCH', `/api/tenants/${clientId}/`, agencyToken, {
      feature_overrides: { monitor_min_interval_seconds: 10 },
    });
    expect(tenantPatch.status, JSON.stringify(tenantPatch.body)).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await stopAll(started);
    if (process.env.TOPOLOGY_LOGS) for (const p of started) process.stderr.write(`\n===== ${p.name}\n${p.output()}`);
    await Promise.all([site?.close(), receiver?.close(), tagging?.close(), redis?.stop(), pg?.destroy()]);
    fs.rmSync(caFile, { force: true });
  }, 60_000);

  it('each role answers its own probes: /readyz lists only its roles, with the database and Redis', async () => {
    for (const p of [...apis, gateway, ...workers]) {
      const { status, checks } = await p.readiness();
      expect(status, p.name).toBe(200);
      expect(Object.keys(checks).sort(), p.name).toEqual(['database', 'redis', ...p.roles.split(',')].sort());
    }
    // The API is served by the api processes only.
    expect((await call(workers[0].base, 'GET', '/api/tenants/', token)).status).toBe(404);
    expect((await call(gateway.base, 'GET', '/api/tenants/', token)).status).toBe(404);
  });

  it('runs scans, container lifecycles, monitor checks and webhook deliveries across the processes', async () => {
    const hook = await api('POST', '/api/webhooks/', {
      url: `${receiver.url}/all`,
      event_types: ['tracking_checker.scan.completed', 'tracking_checker.scan.failed', 'container.status_changed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    webhookId = hook.body.id;

    // Asynchronous: 202 from one api process, polled on the other until a worker completed it.
    const asyncId = await enqueueScan(`${site.url}/page`, 'completed', apis[0]);
    const done = await scanEnded(asyncId);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.trackers.map((tracker: Json) => tracker.id ?? tracker.name).join(' ')).toMatch(/ga4|google/i);
    // Synchronous: the api process waits for a worker's result.
    const sync = await call(apis[1].base, 'POST', '/api/v1/tracking-checker/scan/', token, { url: `${site.url}/page` });
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
    scans.set(sync.body.scan_id, 'completed');
    expect(sync.body.trackers.length).toBeGreaterThan(0);

    // A container: created on one api process, brought to running by a worker, served by the gateway.
    const created = await api('POST', '/api/containers/', {
      name: 'Topology sGTM',
      region: 'eu-central',
      config: CONFIG,
      upstream_url: tagging.url,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    container = created.body;
    await containerStatus('running');
    await gatewayServes(200);
    expect((await throughGateway(gateway.gatewayUrl!)).body).toBe('tagging server saw /g/collect?v=2');
    expect((await api('POST', `/api/containers/${container.id}/stop/`, undefined, { via: apis[1] })).status).toBe(202);
    await containerStatus('stopped');
    await gatewayServes(503);
    expect((await api('POST', `/api/containers/${container.id}/start/`)).status).toBe(202);
    await containerStatus('running');
    await gatewayServes(200);

    // A monitor of a local target: checked by a worker, its checks read through the API.
    const monitor = await api('POST', '/api/monitors/', {
      name: 'Shop health',
      target: { type: 'url', url: `${site.url}/health` },
      interval_seconds: 10,
      timeout_ms: 2000,
    });
    expect(monitor.status, JSON.stringify(monitor.body)).toBe(201);
    monitorId = monitor.body.id;
    await waitFor(async () => (await checksOfMonitor()).length >= 1, 20_000, 'a monitor check');
    expect((await checksOfMonitor())[0]).toMatchObject({ result: 'up', status_code: 200 });
    expect(site.hits('/health')).toBeGreaterThanOrEqual(1);

    // Webhooks: the scans and each container transition, delivered once each.
    await waitFor(async () => eventsOfScan(asyncId, 'tracking_checker.scan.completed').length === 1, 20_000, 'hook');
    await waitFor(
      async () => receiver.deliveries.filter((d) => d.type === 'container.status_changed').length >= 4,
      20_000,
      'container webhooks',
    );
  }, 90_000);

  it('a worker killed (SIGKILL) while it holds a scan and a webhook delivery: both finish on the other worker, once', async () => {
    const heldHook = await api('POST', '/api/webhooks/', {
      url: `${receiver.url}/held`,
      event_types: ['tracking_checker.scan.failed'],
    });
    expect(heldHook.status).toBe(201);
    const [victim, survivor] = workers;
    const pageGate = site.hold('kill');
    const hookGate = receiver.hold('/held');
    // Only the victim takes work while the jobs are handed out: the survivor is paused (SIGSTOP) until it holds both.
    survivor.child.kill('SIGSTOP');
    let scanId: string;
    let failedScanId: string;
    try {
      // A scan of a closed port fails at once; its `scan.failed` delivery to /held is held by the receiver.
      failedScanId = await enqueueScan('https://127.0.0.1:9/', 'failed');
      scanId = await enqueueScan(`${site.url}/held/kill`);
      await waitFor(async () => pageGate.arrivals === 1 && hookGate.arrivals === 1, 20_000, 'victim holding both');
      expect((await scanState(scanId)).status).toBe('running');
    } finally {
      survivor.child.kill('SIGCONT');
    }
    victim.kill('SIGKILL');
    await victim.exited;
    // The child's exit can be seen before its sockets' close: releasing first would answer the dead victim's requests.
    await waitFor(async () => pageGate.cutOff === 1 && hookGate.cutOff === 1, 20_000, 'the victim’s requests cut off');
    pageGate.release();
    hookGate.release();
    const replacement = startTagport('worker-3', 'worker', env, started);

    // The jobs stay `active` until the dead worker's heartbeat lapses; then the survivor runs each again.
    const done = await scanEnded(scanId!, 45_000);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const heldEvent = receiver.deliveries.find((d) => d.path === '/held')!.eventId;
    await waitFor(async () => answeredFor('/held', heldEvent).length === 1, 45_000, 'the held delivery retried');
    workers = [survivor, await replacement];

    // The page saw the scan twice (the first request died with the victim); the scan completed once.
    expect(pageGate.arrivals).toBe(2);
    expect(pageGate.cutOff).toBe(1);
    await waitFor(async () => eventsOfScan(scanId!, 'tracking_checker.scan.completed').length === 1, 20_000, 'hook');
    expect(eventsOfScan(scanId!, 'tracking_checker.scan.failed')).toEqual([]);
    // The delivery reached /held twice with one event id: the first attempt was cut off before any answer, so
    // the endpoint acknowledged it once; a receiver that de-duplicates by event id (tagport-event-id) sees it once.
    const toHeld = receiver.deliveries.filter((d) => d.path === '/held' && d.eventId === heldEvent);
    expect(toHeld.map((d) => d.answered)).toEqual([false, true]);
    expect(toHeld[0].data.scan_id).toBe(failedScanId!);
    // The same event's delivery to /all was answered before the kill, in the same batch of jobs: its job ran again
    // on the survivor, which found the delivery settled and sent nothing.
    expect(receiver.deliveries.filter((d) => d.path === '/all' && d.eventId === heldEvent)).toHaveLength(1);
    const listed = await api('GET', `/api/webhooks/${heldHook.body.id}/deliveries/`);
    expect(listed.body.results).toEqual([
      expect.objectContaining({ event_id: heldEvent, status: 'succeeded', attempts: 1 }),
    ]);
  }, 90_000);

  it('PostgreSQL stopped and started: every role reports it and recovers by itself', async () => {
    const everyone = [...apis, gateway, ...workers];
    const checksBefore = (await checksOfMonitor()).length;
    await pg.stop();
    try {
      for (const p of everyone)
        await waitFor(async () => (await p.readiness()).status === 503, 10_000, `${p.name} unready`);
      for (const p of everyone) expect((await p.readiness()).checks.database, p.name).toBe('unreachable');
    } finally {
      await pg.start();
    }
    const restartedAt = Date.now();
    for (const p of everyone) await waitFor(async () => (await p.readiness()).status === 200, 30_000, p.name);
    for (const p of everyone) expect(p.child.exitCode, p.name).toBeNull();

    for (const p of apis) expect((await api('GET', '/api/tenants/', undefined, { via: p })).status, p.name).toBe(200);
    // The gateway hears of container changes again (its LISTEN connection came back).
    expect((await api('POST', `/api/containers/${container.id}/stop/`)).status).toBe(202);
    await containerStatus('stopped');
    await gatewayServes(503);
    expect((await api('POST', `/api/containers/${container.id}/start/`)).status).toBe(202);
    await containerStatus('running');
    await gatewayServes(200);
    // Workers take jobs again: a scan, its webhook, and the monitor's next checks.
    const scanId = await enqueueScan(`${site.url}/page`);
    expect((await scanEnded(scanId)).status).toBe('completed');
    await waitFor(async () => eventsOfScan(scanId, 'tracking_checker.scan.completed').length === 1, 20_000, 'hook');
    await waitFor(
      async () =>
        (await checksOfMonitor()).some((check) => Date.parse(check.checked_at) > restartedAt) &&
        (await checksOfMonitor()).length > checksBefore,
      30_000,
      'a monitor check after the restart',
    );
  }, 90_000);

  describe('SIGTERM to each role under light load', () => {
    /**
     * Runs `during` under light load: API reads and gateway hits every 50 ms, each on a fresh connection. Returns the
     * requests that did not get their answer. A client moves on to the next process of the role only when the one it
     * tried is being stopped by the test and did not process the request: the connection was refused (listener
     * closed), or the request met the shutdown itself (503 with `Connection: close`, answered before routing —
     * Fastify's return503OnClosing). Any other error or status is a failure.
     */
    async function underLoad(gateways: () => TagportProcess[], during: () => Promise<void>) {
      const failures: string[] = [];
      let handedOver = 0;
      let running = true;
      let rounds = 0;
      const attempt = async (targets: TagportProcess[], send: (p: TagportProcess) => Promise<Answer>) => {
        for (const target of targets) {
          try {
            const answer = await send(target);
            if (answer.status === 503 && target.leaving && answer.headers.connection === 'close') {
              handedOver++;
              continue;
            }
            if (answer.status !== 200) failures.push(`${target.name}: ${answer.status} ${JSON.stringify(answer.body)}`);
            return;
          } catch (error) {
            if (refused(error) && target.leaving) {
              handedOver++;
              continue;
            }
            failures.push(`${target.name}: ${(error as Error).message}`);
            return;
          }
        }
        failures.push(`no process of ${targets.map((target) => target.name)} answered`);
      };
      const loop = (async () => {
        while (running) {
          rounds++;
          await Promise.all([
            attempt(apis, (p) => call(p.base, 'GET', '/api/containers/', token)),
            attempt(gateways(), (p) => throughGateway(p.gatewayUrl!)),
          ]);
          await sleep(50);
        }
      })();
      try {
        await during();
      } finally {
        running = false;
        await loop;
      }
      expect(rounds).toBeGreaterThan(0);
      return { failures, handedOver };
    }

    it('api: the request in flight (a synchronous scan) completes, the other api takes the rest', async () => {
      const [leaving, staying] = apis;
      const { failures } = await underLoad(
        () => [gateway],
        async () => {
          const gate = site.hold('sync');
          const inFlight = call(leaving.base, 'POST', '/api/v1/tracking-checker/scan/', token, {
            url: `${site.url}/held/sync`,
          });
          await waitFor(async () => gate.arrivals === 1, 20_000, 'the scan to reach the page');
          leaving.kill('SIGTERM');
          // Released once the process is shutting down (its readiness is gone): the answer comes after SIGTERM.
          const unready = async () => (await leaving.readiness().catch(() => ({ status: 0 }))).status !== 200;
          await waitFor(unready, 10_000, `${leaving.name} to stop being ready`);
          gate.release();
          const answer = await inFlight;
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          scans.set(answer.body.scan_id, 'completed');
          expect(await leaving.exited).toBe(0);
        },
      );
      expect(failures).toEqual([]);
      apis = [staying, await startTagport('api-3', 'api', env, started)];
    }, 90_000);

    it('worker: the scans it holds complete, none is lost', async () => {
      const [leaving, staying] = workers;
      const ids: string[] = [];
      const gate = site.hold('term');
      const { failures } = await underLoad(
        () => [gateway],
        async () => {
          // Each worker runs two scans at once (SCANNER_CONCURRENCY): with four held, each worker holds two.
          for (let i = 0; i < 4; i++) ids.push(await enqueueScan(`${site.url}/held/term`));
          await waitFor(async () => gate.arrivals === 4, 30_000, 'both workers holding two scans');
          leaving.kill('SIGTERM');
          await sleep(300);
          gate.release();
          expect(await leaving.exited).toBe(0);
        },
      );
      expect(failures).toEqual([]);
      for (const id of ids) {
        const ended = await scanEnded(id);
        expect(ended.status, JSON.stringify(ended)).toBe('completed');
      }
      // Finished by the worker that held them, within its shutdown grace: no page was asked twice.
      expect(gate.arrivals).toBe(4);
      for (const id of ids)
        await waitFor(async () => eventsOfScan(id, 'tracking_checker.scan.completed').length === 1, 20_000, 'hook');
      workers = [staying, await startTagport('worker-4', 'worker', env, started)];
    }, 90_000);

    it('gateway: the proxied request in flight completes, the new gateway takes the rest', async () => {
      const next = await startTagport('gateway-2', 'gateway', env, started);
      const leaving = gateway;
      const { failures } = await underLoad(
        () => [leaving, next],
        async () => {
          const inFlight = throughGateway(leaving.gatewayUrl!, '/slow');
          await waitFor(async () => tagging.seen.includes('/slow'), 10_000, 'the slow request upstream');
          leaving.kill('SIGTERM');
          expect(await inFlight).toMatchObject({ status: 200, body: 'tagging server saw /slow' });
          expect(await leaving.exited).toBe(0);
        },
      );
      expect(failures).toEqual([]);
      gateway = next;
    }, 90_000);
  });

  it('lost no job: every scan ended as expected, every webhook delivery succeeded, each event acknowledged once', async () => {
    for (const [id, expected] of scans) expect((await scanState(id)).status, id).toBe(expected);
    const answered = receiver.deliveries.filter((d) => d.answered).map((d) => `${d.path} ${d.eventId}`);
    expect(new Set(answered).size).toBe(answered.length);
    const deliveries = await api('GET', `/api/webhooks/${webhookId}/deliveries/?limit=100`);
    expect(deliveries.body.results.length).toBeGreaterThan(0);
    for (const delivery of deliveries.body.results) expect(delivery.status, delivery.id).toBe('succeeded');
    expect(receiver.deliveries.filter((d) => d.path === '/all').length).toBe(deliveries.body.results.length);
  });
});
