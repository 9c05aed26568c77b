import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Invalidation, InvalidationBus } from '../../../src/db/invalidation.js';
import { taggingServerDeployments, taggingServerLogs, taggingServerReplicas } from '../../../src/db/schema.js';
import { SecretBox } from '../../../src/lib/secrets.js';
import type { TaggingServerSpec, TaggingServerState } from '../../../src/modules/tagging-servers/orchestrator.js';
import { ProcessOrchestrator } from '../../../src/modules/tagging-servers/process-driver.js';
import { TaggingServerSupervisor } from '../../../src/modules/tagging-servers/supervisor.js';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { type GoogleFixture, startGoogleFixture } from '../../helpers/google-fixture.js';
import { waitFor } from '../../helpers/processes.js';
import {
  alive,
  containerConfig,
  groupAlive,
  PREVIEW_HOST,
  seedContainer,
  STANDIN_COMMAND,
  startPreviewGateway,
} from '../../helpers/tagging-servers.js';

const CONTAINER = 'ctr_sgtm1';
const CONFIG = containerConfig();
const DECODED_CONFIG = Buffer.from(CONFIG, 'base64').toString('utf8');

function spec(changes: Partial<TaggingServerSpec> = {}): TaggingServerSpec {
  return {
    containerId: CONTAINER,
    tenantId: `ten_${CONTAINER}`,
    config: CONFIG,
    previewServerUrl: `https://${PREVIEW_HOST}`,
    version: 'stable',
    replicas: { min: 1, max: 3 },
    resources: { cpuMillis: 500, memoryMiB: 512 },
    ...changes,
  };
}

for (const backend of backends) {
  // Replicas are real Node processes: on a busy two-core machine a start takes seconds, hence the generous timeouts.
  describe(`the process driver and its supervisor (${backend})`, { timeout: 60_000 }, () => {
    let testDatabase: TestDatabase;
    let invalidations: InvalidationBus;
    let driver: ProcessOrchestrator;
    let supervisor: TaggingServerSupervisor;
    let google: GoogleFixture;
    let gateway: Awaited<ReturnType<typeof startPreviewGateway>>;
    let errors: unknown[];
    let published: Invalidation[];
    let secrets: SecretBox;

    beforeAll(async () => {
      google = await startGoogleFixture();
      gateway = await startPreviewGateway(async () => (await driver.endpoints(CONTAINER)).preview[0]);
    });
    afterAll(async () => {
      await gateway?.close();
      await google?.close();
    });

    beforeEach(async () => {
      testDatabase = await createTestDatabase(backend);
      const { database } = testDatabase;
      invalidations = new InvalidationBus(database);
      await invalidations.start();
      published = [];
      invalidations.subscribe((invalidation) => published.push(invalidation));
      secrets = new SecretBox(randomBytes(32));
      await seedContainer(database.db, CONTAINER);
      driver = new ProcessOrchestrator({ database, invalidations, secrets });
      errors = [];
      supervisor = newSupervisor();
      await supervisor.start();
    });
    afterEach(async () => {
      await supervisor.stop();
      await invalidations.stop();
      await testDatabase.drop();
      expect(errors).toEqual([]);
    });

    function newSupervisor() {
      return new TaggingServerSupervisor(
        { database: testDatabase.database, invalidations, secrets },
        {
          command: STANDIN_COMMAND,
          extraEnv: {
            NODE_EXTRA_CA_CERTS: gateway.caFile,
            STANDIN_CONNECT_TO: `127.0.0.1:${gateway.port}`,
            STANDIN_COLLECT_URL: `${google.origin}/g/collect`,
            STANDIN_PRINT_CONFIG: 'true',
          },
          healthIntervalMs: 200,
          stopGraceMs: 2_000,
          reconcileIntervalMs: 500,
          logFlushIntervalMs: 100,
          supervisorName: `test:${process.pid}`,
          onError: (error) => errors.push(error),
        },
      );
    }

    async function until(condition: (state: TaggingServerState) => boolean, what: string, timeoutMs = 30_000) {
      await waitFor(async () => condition(await driver.observe(CONTAINER)), timeoutMs, what);
      return driver.observe(CONTAINER);
    }

    const replicaRows = () =>
      testDatabase.database.db
        .select()
        .from(taggingServerReplicas)
        .where(eq(taggingServerReplicas.containerId, CONTAINER));
    const runningPids = () => supervisor.processes(CONTAINER).flatMap((replica) => (replica.pid ? [replica.pid] : []));

    it('apply makes the replicas available: /healthz answers, hits reach the collector, previews the preview server', async () => {
      await driver.apply(spec({ replicas: { min: 2, max: 3 } }));
      const state = await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available');
      expect(state).toEqual({
        phase: 'available',
        reason: null,
        replicas: { ready: 2, desired: 2, min: 2, max: 2 },
        version: 'stable',
      });
      const endpoints = await driver.endpoints(CONTAINER);
      expect(endpoints.tagging).toHaveLength(2);
      expect(endpoints.preview).toHaveLength(1);
      for (const endpoint of [...endpoints.tagging, ...endpoints.preview]) {
        expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect((await request(`${endpoint}/healthz`)).statusCode).toBe(200);
      }

      const script = await request(`${endpoints.tagging[0]}/gtm.js?id=GTM-ABCD123`);
      expect(await script.body.text()).toContain('GTM-ABCD123');
      const hit = await request(`${endpoints.tagging[1]}/g/collect?v=2&tid=G-PROCESS1&en=page_view`);
      expect(hit.statusCode).toBe(204);
      expect(google.hits.some((h) => h.params.get('tid') === 'G-PROCESS1')).toBe(true);

      const preview = await request(`${endpoints.tagging[0]}/debug/bootstrap?id=GTM-ABCD123`, {
        headers: { 'x-gtm-server-preview': 'ZW52LTE=' },
      });
      expect(preview.statusCode).toBe(200);
      expect(await preview.body.json()).toEqual({
        preview: true,
        container: 'GTM-ABCD123',
        path: '/debug/bootstrap?id=GTM-ABCD123',
      });
      expect(gateway.seen.at(-1)).toEqual({ servername: PREVIEW_HOST, host: PREVIEW_HOST, preview: 'ZW52LTE=' });
    });

    it("gives a replica nothing of Tagport's environment, only the contract and the operator's extras", async () => {
      process.env.SECRETS_KEY_CANARY = 'must-not-leak';
      try {
        await driver.apply(spec());
        await until((s) => s.phase === 'available', 'available');
      } finally {
        delete process.env.SECRETS_KEY_CANARY;
      }
      const tagging = supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0');
      const environ = fs.readFileSync(`/proc/${tagging?.pid}/environ`, 'utf8').split('\0').filter(Boolean);
      const names = environ.map((entry) => entry.slice(0, entry.indexOf('='))).sort();
      expect(names).toEqual(
        [
          'CONTAINER_CONFIG',
          'HOME',
          'NODE_EXTRA_CA_CERTS',
          'PATH',
          'PORT',
          'PREVIEW_SERVER_URL',
          'PWD', // set by /bin/sh itself
          'STANDIN_COLLECT_URL',
          'STANDIN_CONNECT_TO',
          'STANDIN_PRINT_CONFIG',
        ].sort(),
      );
      expect(environ).toContain(`CONTAINER_CONFIG=${CONFIG}`);
      expect(environ).toContain(`PREVIEW_SERVER_URL=https://${PREVIEW_HOST}`);
    });

    it('applying the same spec twice changes nothing; a new config rolls out a new generation', async () => {
      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available');
      const pids = runningPids();
      await driver.apply(spec());
      await supervisor.reconcile();
      expect(runningPids()).toEqual(pids);
      const generation = async () =>
        (await testDatabase.database.db.select().from(taggingServerDeployments))[0]?.generation;
      expect(await generation()).toBe(1);

      await driver.apply(spec({ config: containerConfig('GTM-NEWONE1') }));
      expect(await generation()).toBe(2);
      await waitFor(
        async () => (await replicaRows()).every((row) => row.generation === 2 && row.state === 'ready'),
        30_000,
        'generation 2 everywhere',
      );
      const script = await request(`${(await driver.endpoints(CONTAINER)).tagging[0]}/gtm.js?id=GTM-NEWONE1`);
      expect(script.statusCode).toBe(200);
      for (const pid of pids) expect(alive(pid)).toBe(false);
    });

    it('a new minimum of replicas scales up and down without replacing the others', async () => {
      await driver.apply(spec({ replicas: { min: 1, max: 3 } }));
      await until((s) => s.phase === 'available', 'available');
      const first = supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0')?.pid;
      await driver.apply(spec({ replicas: { min: 3, max: 3 } }));
      await until((s) => s.phase === 'available' && s.replicas.ready === 3, 'three ready');
      expect((await driver.endpoints(CONTAINER)).tagging).toHaveLength(3);
      await driver.apply(spec({ replicas: { min: 1, max: 3 } }));
      await waitFor(async () => (await replicaRows()).length === 2, 30_000, 'tagging-1 and tagging-2 gone');
      expect((await replicaRows()).map((row) => [row.name, row.generation]).sort()).toEqual([
        ['preview-0', 1],
        ['tagging-0', 1],
      ]);
      expect(supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0')?.pid).toBe(first);
    });

    it('a tagging replica killed with SIGKILL is restarted, counted, and the container is available again', async () => {
      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available');
      const before = supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0');
      published.length = 0;
      process.kill(before?.pid as number, 'SIGKILL');
      await until((s) => s.phase !== 'available', 'the loss to be seen', 5_000);
      await until((s) => s.phase === 'available', 'available again');
      const after = supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0');
      expect(after?.pid).not.toBe(before?.pid);
      const row = (await replicaRows()).find((replica) => replica.name === 'tagging-0');
      expect(row).toMatchObject({ state: 'ready', restarts: 1, generation: 1 });
      expect((await request(`http://${row?.address}/healthz`)).statusCode).toBe(200);
      expect(published.filter((item) => item.kind === 'container' && item.id === CONTAINER).length).toBeGreaterThan(1);
    });

    it('a ready replica that stops answering /healthz (SIGSTOP) is replaced after three failed checks', async () => {
      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available');
      const frozen = supervisor.processes(CONTAINER).find((replica) => replica.name === 'tagging-0')?.pid as number;
      process.kill(frozen, 'SIGSTOP');
      try {
        await waitFor(
          async () => {
            const row = (await replicaRows()).find((replica) => replica.name === 'tagging-0');
            return row?.state === 'ready' && row.restarts === 1;
          },
          30_000,
          'tagging-0 replaced',
        );
        expect(alive(frozen)).toBe(false);
        expect((await driver.observe(CONTAINER)).phase).toBe('available');
      } finally {
        if (alive(frozen)) process.kill(frozen, 'SIGKILL');
      }
    });

    it('a config the tagging server refuses ends failed with its message, is not retried, and never available', async () => {
      const refused = Buffer.from('id=nope&env=1&auth=RefusedAuth1').toString('base64');
      const phases = new Set<string>();
      await driver.apply(spec({ config: refused }));
      const state = await waitFor(
        async () => {
          const observed = await driver.observe(CONTAINER);
          phases.add(observed.phase);
          return observed.phase === 'failed';
        },
        30_000,
        'failed',
      ).then(() => driver.observe(CONTAINER));
      expect(phases.has('available')).toBe(false);
      expect(state.reason).toMatch(/^exited with code 1: Invalid CONTAINER_CONFIG: the container id "nope" is not/);
      const failedRow = (await replicaRows()).find((row) => row.state === 'failed');
      expect(failedRow?.restarts).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await replicaRows()).find((row) => row.name === failedRow?.name)?.restarts).toBe(2);
      expect(runningPids()).toEqual([]);

      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available with a good config');
    });

    it('stop leaves no process and no endpoint; apply brings the replicas back', async () => {
      await driver.apply(spec({ replicas: { min: 2, max: 2 } }));
      await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available');
      const pids = runningPids();
      expect(pids).toHaveLength(3);
      await driver.stop(CONTAINER);
      const stopped = await until((s) => s.phase === 'stopped', 'stopped');
      expect(stopped.replicas).toMatchObject({ ready: 0, desired: 0 });
      for (const pid of pids) expect(groupAlive(pid) || alive(pid)).toBe(false);
      expect(await driver.endpoints(CONTAINER)).toEqual({ tagging: [], preview: [] });
      expect((await replicaRows()).map((row) => row.state)).toEqual(['stopped', 'stopped', 'stopped']);

      await driver.apply(spec({ replicas: { min: 2, max: 2 } }));
      await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available again');
    });

    it('restart replaces every replica with the next generation, one at a time, always serving', async () => {
      await driver.apply(spec({ replicas: { min: 2, max: 2 } }));
      await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available');
      const oldPids = runningPids();
      let sampling = true;
      const taggingCounts: number[] = [];
      const sampler = (async () => {
        while (sampling) {
          taggingCounts.push((await driver.endpoints(CONTAINER)).tagging.length);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await driver.restart(CONTAINER);
      await waitFor(
        async () => {
          const rows = await replicaRows();
          return rows.length === 3 && rows.every((row) => row.generation === 2 && row.state === 'ready');
        },
        30_000,
        'every replica of generation 2',
      );
      sampling = false;
      await sampler;
      expect(Math.min(...taggingCounts)).toBeGreaterThanOrEqual(1);
      expect((await driver.observe(CONTAINER)).phase).toBe('available');
      for (const pid of oldPids) expect(alive(pid)).toBe(false);
      expect(runningPids().some((pid) => oldPids.includes(pid))).toBe(false);
    });

    it('remove deletes the rows and the logs and leaves no process', async () => {
      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available');
      await waitFor(async () => (await driver.logs(CONTAINER, { lines: 10 })).length > 0, 15_000, 'logs');
      const pids = runningPids();
      await driver.remove(CONTAINER);
      const { db } = testDatabase.database;
      await waitFor(
        async () =>
          (await replicaRows()).length === 0 &&
          (await db.select().from(taggingServerLogs).where(eq(taggingServerLogs.containerId, CONTAINER))).length === 0,
        20_000,
        'rows and logs gone',
      );
      for (const pid of pids) expect(groupAlive(pid) || alive(pid)).toBe(false);
      expect(await driver.observe(CONTAINER)).toMatchObject({ phase: 'absent', version: null });
      expect(await driver.endpoints(CONTAINER)).toEqual({ tagging: [], preview: [] });
    });

    it("the supervisor's stop leaves no process and marks the rows stopped", async () => {
      await driver.apply(spec({ replicas: { min: 2, max: 2 } }));
      await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available');
      const pids = runningPids();
      await supervisor.stop();
      for (const pid of pids) expect(groupAlive(pid) || alive(pid)).toBe(false);
      expect((await replicaRows()).every((row) => row.state === 'stopped' && row.address === null)).toBe(true);
      expect((await driver.observe(CONTAINER)).phase).toBe('progressing');

      supervisor = newSupervisor();
      await supervisor.start();
      await until((s) => s.phase === 'available' && s.replicas.ready === 2, 'available under a new supervisor');
    });

    it('logs hold each replica’s startup line, newest per replica, and never the config', async () => {
      await driver.apply(spec());
      await until((s) => s.phase === 'available', 'available');
      await waitFor(
        async () => (await driver.logs(CONTAINER, { lines: 10 })).length >= 4,
        15_000,
        'two lines per replica',
      );
      const lines = await driver.logs(CONTAINER, { lines: 10 });
      expect(lines).toContainEqual({
        replica: 'tagging-0',
        stream: 'stdout',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        line: expect.stringMatching(/^Stand-in tagging server for GTM-ABCD123 listening on 127\.0\.0\.1:\d+$/),
      });
      expect(
        lines.some((line) => line.replica === 'preview-0' && line.line.startsWith('Stand-in preview server')),
      ).toBe(true);
      expect(lines).toContainEqual(expect.objectContaining({ line: 'CONTAINER_CONFIG=[redacted]' }));
      const everything = JSON.stringify(await testDatabase.database.db.select().from(taggingServerLogs));
      for (const secret of [CONFIG, DECODED_CONFIG, 'Zq9SecretAuthValue']) expect(everything).not.toContain(secret);

      const newest = await driver.logs(CONTAINER, { lines: 1 });
      expect(newest.map((line) => line.replica).sort()).toEqual(['preview-0', 'tagging-0']);
      expect(newest.every((line) => line.line.startsWith('Stand-in'))).toBe(true);
    });
  });
}
