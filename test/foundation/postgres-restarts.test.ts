import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openConfiguredDatabase } from '../../src/process-start.js';
import { createServices } from '../../src/services.js';
import { CONFIG } from '../helpers/gateway-app.js';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/processes.js';
import { startTagport, stopAll, type TagportProcess } from '../helpers/topology.js';

/**
 * The fault suite of PostgreSQL restarts: one `tagport serve` (api and worker roles) on a private cluster, four
 * clients writing through its API, and the cluster restarted with `pg_ctl restart -m fast` ten times. The process
 * must live through every restart, and every write it acknowledged (2xx) must be in the database afterwards.
 */

const RESTARTS = 10;
const WRITERS = 4;

type Written = { table: 'containers' | 'api_keys' | 'webhooks'; id: string } | { table: 'revoked'; id: string };

async function startReceiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.runIf(postgresBinDir)('PostgreSQL restarted 10 times under a mixed load, workers on', () => {
  const started = new Set<TagportProcess>();
  let cluster: PostgresCluster;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: TagportProcess;
  let token: string;
  const acknowledged: Written[] = [];
  const outcomes = { acknowledged: 0, refused: 0 };
  const statuses = new Map<string, number>();

  async function call(method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
    const response = await request(`${server.base}${path}`, {
      method: method as 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : null };
  }

  /** One write, the kind taken in turn (container, webhook, key, revocation); acknowledged ones are remembered. */
  async function writeOnce(writer: number, n: number): Promise<void> {
    const kind = n % 4;
    const keys = acknowledged.filter((written) => written.table === 'api_keys');
    const [method, path, body, table] =
      kind === 0
        ? [
            'POST',
            '/api/containers/',
            { name: `Restart ${writer}-${n}`, region: 'eu-central', config: CONFIG },
            'containers',
          ]
        : kind === 1
          ? [
              'POST',
              '/api/webhooks/',
              { url: `${receiver.url}/${writer}`, event_types: ['container.status_changed'] },
              'webhooks',
            ]
          : kind === 2 || keys.length === 0
            ? ['POST', '/api/api-keys/', { name: `restart ${writer}-${n}` }, 'api_keys']
            : ['DELETE', `/api/api-keys/${keys[(writer + n) % keys.length].id}/`, undefined, 'revoked'];
    const answer = await call(method, path, body).catch(() => ({ status: 0, body: null }));
    if (answer.status < 200 || answer.status >= 300) {
      outcomes.refused++;
      statuses.set(
        `${method} ${table} ${answer.status}`,
        (statuses.get(`${method} ${table} ${answer.status}`) ?? 0) + 1,
      );
      return;
    }
    outcomes.acknowledged++;
    acknowledged.push({ table: table as Written['table'], id: answer.body.id });
  }

  beforeAll(async () => {
    [cluster, receiver] = await Promise.all([startPostgresCluster('pg-restarts'), startReceiver()]);
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: cluster.url,
      REDIS_URL: '',
      COOKIE_SECRET: 'pg-restarts-test-cookie-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      ALLOW_PRIVATE_NETWORKS: 'true',
      CONTAINER_TRANSITION_DELAY_MS: '0',
      JOB_POLL_MS: '500',
      JOB_SUPERVISE_SECONDS: '1',
      WEBHOOK_RETRY_BASE_MS: '200',
      DATABASE_POOL_SIZE: '6',
      RATE_LIMIT_PER_MINUTE: '100000',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '100000',
    };
    const config = loadConfig(env, { runMigrations: true });
    const database = await openConfiguredDatabase(config);
    try {
      const services = createServices({ database, config });
      const tenant = await services.tenants.create({ name: 'Restarts', plan: 'partner' });
      token = (await services.apiKeys.create(tenant.id, { name: 'load', role: 'owner' })).token;
    } finally {
      await database.close();
    }
    server = await startTagport('server', 'api,worker', env, started);
  }, 120_000);

  afterAll(async () => {
    await stopAll(started);
    // RESTART_LOGS=<file> keeps the server's log for a look at what the restarts made it say.
    if (process.env.RESTART_LOGS) fs.writeFileSync(process.env.RESTART_LOGS, server?.output() ?? '');
    await Promise.all([receiver?.close(), cluster?.destroy()]);
  }, 60_000);

  it('never exits, and every write answered 2xx is in the database afterwards', async () => {
    let loading = true;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = 0; loading; n++) await writeOnce(writer, n);
    });
    let survived = 0;
    try {
      for (let restart = 0; restart < RESTARTS && server.child.exitCode === null; restart++) {
        const before = outcomes.acknowledged;
        await cluster.restart();
        // The next restart comes once writes are acknowledged again: each one hits a process under load.
        await waitFor(
          async () => server.child.exitCode !== null || outcomes.acknowledged > before + 2 * WRITERS,
          15_000,
          `writes to be acknowledged after restart ${restart + 1}`,
        );
        if (server.child.exitCode === null) survived++;
      }
    } finally {
      loading = false;
      await Promise.all(writers);
    }
    expect(server.child.exitCode, server.output().slice(-3000)).toBeNull();
    expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
    // What failed during a restart is logged as such, not as pg-boss's plain copies of errors.
    expect(server.output()).not.toContain('[object Object]');
    expect(survived).toBe(RESTARTS);

    const missing = await missingWrites(cluster.url, acknowledged);
    process.stdout.write(
      `postgres restarts: ${survived} survived; ${outcomes.acknowledged} writes acknowledged, ${outcomes.refused} refused, ${outcomes.acknowledged - missing.length} found ${JSON.stringify([...statuses])}\n`,
    );
    expect(acknowledged.length).toBeGreaterThan(RESTARTS * WRITERS);
    expect(missing).toEqual([]);
    // The workers went on too: every container created is brought up by a job, whatever restart it lived through.
    const created = acknowledged.filter((write) => write.table === 'containers').map((write) => write.id);
    await waitFor(
      async () => (await notRunning(cluster.url, created)) === 0,
      30_000,
      `the ${created.length} containers to run`,
    );
  }, 120_000);
});

async function notRunning(url: string, containerIds: string[]): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query(
      "select count(*)::int as n from containers where id = any($1::text[]) and status <> 'running'",
      [containerIds],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** The acknowledged writes the database does not hold: rows missing, or a revoked key without its revocation. */
async function missingWrites(url: string, written: Written[]): Promise<Written[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const found = new Set<string>();
    for (const table of ['containers', 'api_keys', 'webhooks'] as const) {
      const ids = written.filter((write) => write.table === table).map((write) => write.id);
      const { rows } = await client.query(`select id from ${table} where id = any($1::text[])`, [ids]);
      for (const row of rows) found.add(`${table}:${row.id}`);
    }
    const revoked = written.filter((write) => write.table === 'revoked').map((write) => write.id);
    const { rows } = await client.query(
      'select id from api_keys where id = any($1::text[]) and revoked_at is not null',
      [revoked],
    );
    for (const row of rows) found.add(`revoked:${row.id}`);
    return written.filter((write) => !found.has(`${write.table}:${write.id}`));
  } finally {
    await client.end();
  }
}
