import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cli-'));
const env = { ...process.env, PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', GATEWAY_PORT: '0' };

async function tagport(...args: string[]) {
  const { stdout } = await run(process.execPath, [bin, ...args], { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

async function serve(logLevel = 'warn') {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], { env: { ...env, PORT: String(port), LOG_LEVEL: logLevel }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await request(`${base}/readyz`)).statusCode === 200, 30_000, `tagport serve (${output})`);
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, output };
    },
  };
}

describe('tagport CLI on the embedded database', () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('migrates, creates a tenant and a key, serves with it, shuts down gracefully and revokes', async () => {
    expect(await tagport('migrate')).toEqual({ migrated: true, database: 'pglite' });
    const tenant = await tagport('tenants', 'create', '--name', 'CLI Agency', '--plan', 'agency');
    expect(tenant).toMatchObject({ name: 'CLI Agency', plan: 'agency', id: expect.stringMatching(/^ten_/) });
    const client = await tagport('tenants', 'create', '--name', 'CLI Client', '--parent', tenant.id);
    expect(client.parent_id).toBe(tenant.id);
    const key = await tagport('keys', 'create', '--tenant', tenant.id, '--name', 'cli');
    expect(key.token).toMatch(/^tgp_/);

    const server = await serve('info');
    const response = await request(`${server.base}/api/tenants/`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(response.statusCode).toBe(200);
    const body = (await response.body.json()) as { count: number };
    expect(body.count).toBe(2);
    const { code, output } = await server.stop();
    expect(code).toBe(0);
    const lines = output.split('\n').filter((line) => line.includes(String(response.headers['x-request-id'])));
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['incoming request', 'request completed']);
    expect(output).not.toContain(key.token);
    expect(output).toContain('"msg":"shutting down"');

    const revoked = await tagport('keys', 'revoke', key.id, '--tenant', tenant.id);
    expect(revoked.status).toBe('revoked');
    const again = await serve();
    const refused = await request(`${again.base}/api/tenants/`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(refused.statusCode).toBe(401);
    await refused.body.dump();
    expect((await again.stop()).code).toBe(0);
  }, 180_000);

  it('explains usage errors with exit code 64', async () => {
    const failure = await run(process.execPath, [bin, 'keys', 'create'], { env }).catch((error) => error);
    expect(failure.code).toBe(64);
    expect(failure.stderr).toContain('--tenant is required');
  });
});
