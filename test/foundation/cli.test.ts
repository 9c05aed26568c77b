import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cli-'));
const env = {
  ...process.env,
  PGLITE_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  REDIS_URL: '',
  GATEWAY_PORT: '0',
};

async function tagport(...args: string[]) {
  const { stdout } = await run(process.execPath, [bin, ...args], { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

/** Runs the CLI and reports how it ended instead of throwing on a non-zero exit. */
async function attempt(args: string[], overrides: Record<string, string> = {}, timeout = 60_000) {
  return run(process.execPath, [bin, ...args], { env: { ...env, ...overrides }, timeout }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

const STACK_FRAME = /^\s+at /m;
/** Servers a failed test may have left running; killed after each test. */
const servers = new Set<ChildProcess>();
// One left running would hold the data directory's lock for every later test.
afterEach(async () => {
  const running = [...servers].filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(
    running.map((child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
  servers.clear();
});

async function serve(logLevel = 'warn', overrides: Record<string, string> = {}, args: string[] = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    env: { ...env, ...overrides, PORT: String(port), LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await request(`${base}/readyz`)).statusCode === 200, 90_000, `tagport serve (${output})`);
  return {
    base,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, output };
    },
  };
}

/** The data directory and the files Tagport keeps beside it (lock, cookie secret). */
function removeDataDir(dir: string) {
  for (const file of [dir, `${dir}.lock`, `${dir}.cookie-secret`]) fs.rmSync(file, { recursive: true, force: true });
}

describe('tagport CLI on the embedded database', () => {
  afterAll(() => removeDataDir(dataDir));

  it('migrates, creates a tenant and a key, serves with it, shuts down gracefully and revokes', async () => {
    expect(await tagport('migrate')).toEqual({ migrated: true, database: 'pglite' });
    const tenant = await tagport('tenants', 'create', '--name', 'CLI Agency', '--plan', 'agency');
    expect(tenant).toMatchObject({ name: 'CLI Agency', plan: 'agency', id: expect.stringMatching(/^ten_/) });
    const client = await tagport('tenants', 'create', '--name', 'CLI Client', '--parent', tenant.id);
    expect(client.parent_id).toBe(tenant.id);
    const key = await tagport('keys', 'create', '--tenant', tenant.id, '--name', 'cli');
    expect(key.token).toMatch(/^tgp_/);
    expect(key.role).toBe('admin');
    expect((await tagport('keys', 'create', '--tenant', tenant.id, '--name', 'billing', '--role', 'owner')).role).toBe(
      'owner',
    );

    const server = await serve('info');
    // The human banner, once set-up has been checked: where the dashboard is and which database is in use.
    await waitFor(async () => server.output().includes('Tagport is ready.'), 60_000, 'the start banner');
    expect(server.output()).toContain(`Dashboard:  ${server.base}/\n`);
    expect(server.output()).toContain(`Database:   PGlite in ${dataDir}\n`);
    // The JSON log of the same moment says where the start's time went: when each step was done (the app's modules
    // load while the database opens, so those two finish in either order; building the app needs both).
    // The log is written asynchronously, so its line may arrive after the banner.
    const readyLine = () =>
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.endsWith('}'))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.msg === 'ready');
    await waitFor(async () => readyLine() !== undefined, 30_000, 'the ready log line');
    const at = readyLine().startup_ms as Record<string, number>;
    expect(Object.keys(at).sort()).toEqual(
      ['api_listening', 'app_built', 'app_modules_loaded', 'database_ready', 'gateway_listening', 'ready'].sort(),
    );
    expect(at.app_built).toBeGreaterThanOrEqual(Math.max(at.app_modules_loaded, at.database_ready));
    const inOrder = [at.app_built, at.api_listening, at.gateway_listening, at.ready];
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
    const response = await request(`${server.base}/api/tenants/`, {
      headers: { authorization: `Bearer ${key.token}` },
    });
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

  it('runs only the roles given: a worker answers its probes per role, serves no API and opens no gateway port', async () => {
    const gatewayPort = await freePort();
    const server = await serve('warn', { GATEWAY_PORT: String(gatewayPort) }, ['--role', 'worker']);
    try {
      const ready = await request(`${server.base}/readyz`);
      expect(await ready.body.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', worker: 'ok' } });
      const health = await request(`${server.base}/healthz`);
      expect(health.statusCode).toBe(200);
      await health.body.dump();
      const api = await request(`${server.base}/api/status.json`);
      expect(api.statusCode).toBe(404);
      await api.body.dump();
      await expect(request(`http://127.0.0.1:${gatewayPort}/`)).rejects.toThrow();
    } finally {
      const { code } = await server.stop();
      expect(code).toBe(0);
    }
  }, 120_000);

  it('explains usage errors with exit code 64', async () => {
    const failure = await run(process.execPath, [bin, 'keys', 'create'], { env }).catch((error) => error);
    expect(failure.code).toBe(64);
    expect(failure.stderr).toContain('--tenant is required');
  });

  it.each([
    {
      case: 'an option without its value',
      args: ['tenants', 'create', '--name'],
      says: "Option '--name <value>' argument missing",
    },
    {
      case: 'an option followed by another option',
      args: ['tenants', 'create', '--name', '--plan', 'agency'],
      says: "Option '--name' argument is ambiguous",
    },
    {
      case: 'an unknown option',
      args: ['tenants', 'create', '--name', 'Acme', '--colour', 'red'],
      says: "Unknown option '--colour'",
    },
    { case: 'a missing required option', args: ['tenants', 'create'], says: '--name is required' },
    { case: 'a blank value', args: ['tenants', 'create', '--name', ' '], says: '--name needs a value' },
    {
      case: 'a stray argument',
      args: ['keys', 'create', '--tenant', 'ten_x', '--name', 'k', 'stray'],
      says: "Unexpected argument 'stray'",
    },
    {
      case: 'a missing positional argument',
      args: ['keys', 'revoke', '--tenant', 'ten_x'],
      says: 'keys revoke takes one KEY_ID',
    },
    {
      case: 'an invalid email',
      args: [
        'users',
        'create',
        '--email',
        'notanemail',
        '--name',
        'N',
        '--tenant',
        'ten_x',
        '--password',
        'a long enough password',
      ],
      says: "--email 'notanemail' is not a valid email address",
    },
    {
      case: 'an unknown key role',
      args: ['keys', 'create', '--tenant', 'ten_x', '--name', 'k', '--role', 'root'],
      says: '--role must be owner, admin or member',
    },
    {
      case: 'a weak password',
      args: ['users', 'create', '--email', 'a@example.com', '--name', 'N', '--tenant', 'ten_x', '--password', 'short'],
      says: 'at least 12 characters',
    },
    { case: 'an unknown command', args: ['tenants', 'frobnicate'], says: 'unknown command: tenants frobnicate' },
    {
      case: 'an unknown process role',
      args: ['serve', '--role', 'api,scheduler'],
      says: '--role: roles must be a comma-separated list of api, gateway, worker',
    },
  ])('answers $case with the usage and exit 64, before opening or creating the database', async ({ args, says }) => {
    const untouched = path.join(
      os.tmpdir(),
      `tagport-cli-untouched-${process.pid}-${Math.random().toString(36).slice(2)}`,
    );
    const result = await attempt(args, { PGLITE_DATA_DIR: untouched });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(says);
    expect(result.stderr).toContain('Usage:');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).toBe('');
    expect(fs.existsSync(untouched) || fs.existsSync(`${untouched}.lock`)).toBe(false);
  });

  it('refuses to serve in production without COOKIE_SECRET (exit 78), before opening the database', async () => {
    const untouched = path.join(os.tmpdir(), `tagport-cli-untouched-${process.pid}-production`);
    // A short timeout: were the check missing, the server would start and must not outlive the test.
    const result = await attempt(
      ['serve'],
      { PGLITE_DATA_DIR: untouched, NODE_ENV: 'production', COOKIE_SECRET: '', PORT: '0' },
      20_000,
    );
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('COOKIE_SECRET must be set to a random value of at least 32 characters');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(fs.existsSync(untouched)).toBe(false);
  }, 120_000);

  it('answers an unknown tenant with "No tenant <id>" and exit 1, without SQL, parameters or a stack trace', async () => {
    const key = await attempt(['keys', 'create', '--tenant', 'ten_doesnotexist', '--name', 'k']);
    expect(key).toEqual({ code: 1, stdout: '', stderr: 'No tenant ten_doesnotexist\n' });
    const user = await attempt([
      'users',
      'create',
      '--tenant',
      'ten_nope',
      '--email',
      'nope@example.com',
      '--name',
      'N',
      '--password',
      'a long enough password',
    ]);
    expect(user).toEqual({ code: 1, stdout: '', stderr: 'No tenant ten_nope\n' });
  }, 120_000);

  it('refuses to create a user whose email is taken (exit 1)', async () => {
    const tenant = await tagport('tenants', 'create', '--name', 'Users Co');
    const create = (name: string, role: string) =>
      attempt([
        'users',
        'create',
        '--tenant',
        tenant.id,
        '--email',
        'Taken@Example.com',
        '--name',
        name,
        '--role',
        role,
        '--password',
        'a long enough password',
      ]);
    const first = await create('First', 'owner');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ email: 'taken@example.com', name: 'First', role: 'owner' });
    const second = await create('Second', 'member');
    expect(second).toEqual({
      code: 1,
      stdout: '',
      stderr: 'A user with the email taken@example.com already exists; nothing was changed.\n',
    });
  }, 120_000);

  it('refuses the data directory of a running server without writing, and takes over a stale lock', async () => {
    const tenant = await tagport('tenants', 'create', '--name', 'Locked Co', '--plan', 'agency');
    const key = await tagport('keys', 'create', '--tenant', tenant.id, '--name', 'lock test');
    const server = await serve();
    const tenantCount = async () => {
      const response = await request(`${server.base}/api/tenants/`, {
        headers: { authorization: `Bearer ${key.token}` },
      });
      return ((await response.body.json()) as { count: number }).count;
    };
    const besideBefore = fs
      .readdirSync(path.dirname(dataDir))
      .filter((name) => name.startsWith(path.basename(dataDir)));
    const countBefore = await tenantCount();

    for (const args of [
      ['tenants', 'create', '--name', 'Lost Client', '--parent', tenant.id],
      ['keys', 'create', '--tenant', tenant.id, '--name', 'lost'],
    ]) {
      const refused = await attempt(args);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/is in use by another Tagport process \(pid \d+/);
      expect(refused.stderr).not.toMatch(STACK_FRAME);
    }
    expect(await tenantCount()).toBe(countBefore);
    expect(fs.readdirSync(path.dirname(dataDir)).filter((name) => name.startsWith(path.basename(dataDir)))).toEqual(
      besideBefore,
    );
    expect((await server.stop()).code).toBe(0);
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);

    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    fs.writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: gone.pid, started_at: new Date().toISOString() }));
    const client = await tagport('tenants', 'create', '--name', 'After Crash', '--parent', tenant.id);
    expect(client.parent_id).toBe(tenant.id);
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
  }, 180_000);
});

describe('first-run set-up of a database the CLI provisioned', () => {
  const provisioned = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cli-setup-'));
  const overrides = { PGLITE_DATA_DIR: provisioned };
  afterAll(() => removeDataDir(provisioned));

  it('needs the one-time token from `tagport setup-token` or from the URL the server logs at start', async () => {
    expect((await attempt(['tenants', 'create', '--name', 'Provisioned'], overrides)).code).toBe(0);
    const printed = await attempt(['setup-token'], overrides);
    expect(printed.code).toBe(0);
    const cliToken = JSON.parse(printed.stdout) as { token: string; expires_at: string; setup_url: string };
    expect(cliToken.token).toMatch(/^tgs_/);
    expect(cliToken.setup_url).toContain(`/setup?token=${cliToken.token}`);

    const server = await serve('warn', overrides);
    try {
      await waitFor(async () => server.output().includes('Tagport is ready.'), 60_000, 'the start banner');
      const line = server
        .output()
        .split('\n')
        .find((entry) => entry.includes('one-time set-up URL'));
      expect(line).toBeDefined();
      const logged = new URL(JSON.parse(line!).setup_url);
      expect(logged.origin).toBe(server.base);
      const loggedToken = logged.searchParams.get('token')!;
      expect(loggedToken).toMatch(/^tgs_/);
      // The banner shows the same one-time link in plain text, outside the JSON logs.
      expect(server.output()).toContain(`Set up:     ${JSON.parse(line!).setup_url}  (no users yet`);

      const body = {
        organisation: 'Owner Org',
        name: 'Olga Owner',
        email: 'olga@example.com',
        password: 'a long enough password',
      };
      const post = async (extra: Record<string, string>) => {
        const response = await request(`${server.base}/api/setup/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...body, ...extra }),
        });
        return { status: response.statusCode, body: (await response.body.json()) as { error?: { code: string } } };
      };
      expect(await post({})).toMatchObject({ status: 403, body: { error: { code: 'setup_token_required' } } });
      const page = await request(logged);
      expect(page.statusCode).toBe(200);
      expect(await page.body.text()).toContain(`value="${loggedToken}"`);
      expect((await post({ setup_token: loggedToken })).status).toBe(201);
      expect(await post({ setup_token: cliToken.token, email: 'mallory@example.com' })).toMatchObject({
        status: 409,
        body: { error: { code: 'already_set_up' } },
      });
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 180_000);
});
