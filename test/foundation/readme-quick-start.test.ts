import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { freePort, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);

/** The README's section under `## <title>`, up to the next section. */
function section(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The lines of the section's ```bash blocks, comments and blank lines dropped: the commands as a reader copies them. */
function commands(text: string): { command: string; comment: string }[] {
  const blocks = [...text.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [command, ...comment] = line.split(/\s+#\s+/);
      return { command: command.trim(), comment: comment.join(' # ') };
    });
}

/**
 * The README's quick start, followed to the letter on a fresh data directory: the commands are read from README.md
 * (never copied here), run as written with only the port and the key's token put in, and what the README says they
 * show is checked. A changed command, address or described output fails this test.
 */
describe.runIf(process.platform === 'linux')('the README quick start, as a new user follows it', () => {
  const readme = fs.readFileSync('README.md', 'utf8');
  // Under the repository: as root the embedded PostgreSQL runs as `postgres`, which must reach the directory.
  fs.mkdirSync('.tmp', { recursive: true });
  const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'readme-'));
  fs.chmodSync(root, 0o755);
  let server: ChildProcess | undefined;

  afterAll(async () => {
    if (server?.pid && server.exitCode === null) {
      process.kill(-server.pid, 'SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          if (server!.exitCode === null) process.kill(-server!.pid!, 'SIGKILL');
          resolve(null);
        }, 20_000);
        server!.once('exit', () => resolve(clearTimeout(timer)));
      });
    }
    // The cluster stops with the server; its files are removed once it has.
    const postmaster = path.join(root, 'postgres', 'postmaster.pid');
    await waitFor(async () => !fs.existsSync(postmaster), 20_000, 'the embedded PostgreSQL to stop').catch(() => {});
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('starts with the README command, shows the banner it describes, sets up, and answers the curl it gives', async () => {
    const twoCommands = commands(section(readme, 'Two commands'));
    const quickStart = section(readme, 'Quick start');
    /** The quick start's prose on one line: a sentence the README wraps is still found. */
    const prose = quickStart.replace(/\s+/g, ' ');

    // Step 1: the command the quick start names is the README's first command, and the address it promises is the default.
    const step1 = quickStart.match(/\n1\. `([^`]+)`/)?.[1];
    expect(step1, 'quick start step 1 names a command').toBeTruthy();
    const start = twoCommands.find(({ command }) => command === step1);
    expect(start, `"${step1}" is among the README's two commands`).toBeTruthy();
    const promised = start!.comment.match(/serves on (http:\/\/[\d.]+:(\d+))/);
    expect(promised, 'the start command says where it serves').toBeTruthy();
    const [, readmeBase, readmePort] = promised!;
    const defaults = loadConfig({});
    expect(`http://${defaults.host}:${defaults.port}`).toBe(readmeBase);
    expect(start!.comment).toMatch(/its own PostgreSQL cluster/);

    // `npm ci` installs what this test already runs from; running it again would replace the node_modules in use.
    const parts = step1!.split('&&').map((part) => part.trim());
    expect(parts[0]).toBe('npm ci');
    expect(fs.existsSync('node_modules/.package-lock.json')).toBe(true);
    const serveCommand = parts.slice(1).join(' && ');

    // The rest runs as written, on free ports and a fresh data directory (the README's ./data is the user's).
    const [port, gatewayPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${port}`;
    const postgresDir = path.join(root, 'postgres');
    const {
      DATABASE_ENGINE: _engine,
      PGLITE_DATA_DIR: _pglite,
      EMBEDDED_POSTGRES_DIR: _postgres,
      COOKIE_SECRET: _secret,
      ...inherited
    } = process.env;
    server = spawn('sh', ['-c', serveCommand], {
      cwd: path.resolve('.'),
      env: {
        ...inherited,
        PORT: String(port),
        GATEWAY_PORT: String(gatewayPort),
        DATABASE_URL: '',
        REDIS_URL: '',
        LOG_LEVEL: 'info',
        // The README promises its own PostgreSQL cluster: no silent fall-back to PGlite here.
        DATABASE_ENGINE: 'embedded-postgres',
        EMBEDDED_POSTGRES_DIR: postgresDir,
        // Only where the cookie secret is kept (beside the PGlite path), so that nothing is written to ./data.
        PGLITE_DATA_DIR: path.join(root, 'pglite'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(
      async () => (await request(`${base}/readyz`)).statusCode === 200,
      90_000,
      `${serveCommand} (${output})`,
    );

    // "when it is ready it prints a short banner (the dashboard URL, the set-up link while there are no users, the
    // database in use) among its JSON logs"
    expect(prose).toMatch(
      /prints a short banner \(the dashboard URL, the set-up link while there are no users, the database in use\) among its JSON logs/,
    );
    await waitFor(async () => output.includes('Tagport is ready.'), 30_000, `the start banner (${output})`);
    const banner = output.slice(output.indexOf('Tagport is ready.')).split('\n\n')[0];
    expect(banner).toContain(`Dashboard:  ${base}/\n`);
    expect(banner).toContain(`Set up:     ${base}/setup `);
    expect(banner).toContain(`Database:   embedded PostgreSQL in ${postgresDir}\n`);
    expect(output).toMatch(/^\{"level":/m);

    // "Open <http://127.0.0.1:3000/login>: on a fresh database it leads to the first-run set-up"
    const loginLink = prose.match(/Open <(http:\/\/[^>]+)>: on a fresh database it leads to the first-run set-up/)?.[1];
    expect(loginLink).toBe(`${readmeBase}/login`);
    const login = await request(loginLink!.replace(readmeBase, base));
    await login.body.dump();
    expect(login.statusCode).toBe(302);
    expect(new URL(String(login.headers.location), base).pathname).toBe('/setup');
    const setupPage = await request(`${base}/setup`);
    expect(await setupPage.body.text()).toContain('Create your organisation and its owner account.');

    // "which creates your organisation (tenant) and its owner account": what the set-up form sends.
    const account = {
      organisation: 'Readme Agency',
      name: 'Rita Readme',
      email: 'rita@example.com',
      password: 'a very long password',
    };
    const setup = await request(`${base}/api/setup/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    expect(setup.statusCode, await setup.body.text()).toBe(201);

    // Step 2: "In the dashboard, **API keys** creates a key (`tgp_…`, shown once)": the dashboard's calls, signed in.
    expect(prose).toMatch(/\*\*API keys\*\* creates a key \(`tgp_…`, shown once\)/);
    const session = await request(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    const { csrf_token: csrf } = (await session.body.json()) as { csrf_token: string };
    const cookie = ([] as string[])
      .concat(session.headers['set-cookie'] ?? [])
      .map((value) => value.split(';')[0])
      .join('; ');
    const created = await request(`${base}/api/api-keys/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf },
      body: JSON.stringify({ name: 'quick start', role: 'owner' }),
    });
    const key = (await created.body.json()) as { token: string };
    expect(created.statusCode, JSON.stringify(key)).toBe(201);
    expect(key.token).toMatch(/^tgp_/);

    // Step 3: the curl command, as written, with the key and the port put in.
    const calls = commands(quickStart);
    expect(calls).toHaveLength(1);
    const curl = calls[0].command;
    expect(curl).toContain('tgp_…');
    expect(curl).toContain(readmeBase);
    const { stdout } = await run('sh', [
      '-c',
      `${curl.replaceAll('tgp_…', key.token).replaceAll(readmeBase, base)} --silent --fail`,
    ]);
    expect(JSON.parse(stdout).results).toEqual([expect.objectContaining({ name: 'Readme Agency' })]);

    // Step 4 and after: the pages and documents the README links, at the addresses it gives.
    for (const link of [...quickStart.matchAll(/<(http:\/\/127\.0\.0\.1:\d+[^>]*)>/g)].map((match) => match[1])) {
      expect(link.startsWith(`${readmeBase}/`), link).toBe(true);
      const page = await request(link.replace(readmeBase, base));
      await page.body.dump();
      expect([200, 302], link).toContain(page.statusCode);
    }
    const openapi = prose.match(/OpenAPI 3\.1 at `([^`]+)`/)?.[1];
    expect(openapi).toBe('/api/openapi.json');
    const document = await request(`${base}${openapi}`);
    expect(((await document.body.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
    expect(readmePort).toBe(String(defaults.port));
  }, 180_000);
});
