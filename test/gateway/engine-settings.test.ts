import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { listenOn } from '../../src/lib/ports.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testGateway } from '../helpers/gateway-app.js';
import { freePort } from '../helpers/processes.js';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const STACK_FRAME = /^\s+at /m;

/** `tagport serve` as an operator starts it; reports how it ended. */
async function serve(overrides: Record<string, string>, timeoutMs = 20_000) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-engine-settings-'));
  const env = { ...process.env, PGLITE_DATA_DIR: path.join(dataDir, 'db'), DATABASE_URL: '', REDIS_URL: '' };
  try {
    // A short timeout: were the check missing, the server would start and must not outlive the test.
    return await run(process.execPath, [bin, 'serve'], {
      env: { ...env, PORT: '0', GATEWAY_PORT: '0', LOG_LEVEL: 'warn', ...overrides },
      timeout: timeoutMs,
    }).then(
      ({ stderr }) => ({ code: 0 as number | null, stderr }),
      (error: { code: number | null; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.each(['node', 'nginx'] as const)('the gateway engine settings (%s engine)', (engine) => {
  it.each([
    [
      'a GATEWAY_NGINX_DIR that does not exist',
      { GATEWAY_NGINX_DIR: '/nonexistent/tagport-nginx' },
      'Configuration error: GATEWAY_NGINX_DIR: the directory /nonexistent/tagport-nginx does not exist',
    ],
    [
      'a GATEWAY_NGINX_DIR that is a file',
      { GATEWAY_NGINX_DIR: bin },
      `Configuration error: GATEWAY_NGINX_DIR: ${bin} is not a directory`,
    ],
    [
      'a GATEWAY_NGINX_INTERNAL_PORT out of range',
      { GATEWAY_NGINX_INTERNAL_PORT: '70000' },
      'Configuration error: GATEWAY_NGINX_INTERNAL_PORT must be a port from 0 to 65535, got "70000"',
    ],
  ])(
    'refuses to start with %s: exit 78 and a message naming it',
    async (_what, overrides, message) => {
      const result = await serve({ GATEWAY_ENGINE: engine, ...overrides });
      expect(result.code).toBe(78);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    },
    30_000,
  );
});

describe.each(['node', 'nginx'] as const)('a gateway port in use (%s engine)', (engine) => {
  it('ends the start with exit 1 and a message naming the address, not a hang or a stack trace', async () => {
    const holder = net.createServer();
    await listenOn(holder, 0, '127.0.0.1');
    const { port } = holder.address() as net.AddressInfo;
    try {
      // Time for a loaded machine's start (the embedded database first): a timeout ends it with SIGTERM, exit 0.
      const result = await serve({ GATEWAY_ENGINE: engine, HOST: '127.0.0.1', GATEWAY_PORT: String(port) }, 75_000);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`Cannot listen on (127\\.0\\.0\\.1|0\\.0\\.0\\.0):${port}`));
      expect(result.stderr).not.toMatch(STACK_FRAME);
    } finally {
      holder.close();
    }
  }, 90_000);
});

describe('the nginx engine on GATEWAY_NGINX_INTERNAL_PORT', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('hands requests to the Node listener on the configured port, which serves nginx only', async () => {
    const internalPort = await freePort();
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      gateway: testGateway({ engine: 'nginx', nginxInternalPort: internalPort }),
    });
    const { http } = await t.app.services.nativeGateway!.start();
    const direct = await request(`http://127.0.0.1:${internalPort}/healthz`, { headers: { host: 'x.example' } });
    expect(direct.statusCode).toBe(403);
    expect((await direct.body.json()) as object).toMatchObject({ error: { code: 'forbidden' } });
    const through = await request(`${http}/healthz`, { headers: { host: 'unknown.example' } });
    expect(through.statusCode).toBe(404); // answered by Node, through the listener on that port
    await through.body.dump();
  }, 60_000);

  it('refuses a port that is in use with a configuration error naming the setting', async () => {
    await t?.close();
    const busy = await startTestApp('pglite', { gateway: testGateway() });
    const taken = Number(new URL(await busy.app.services.gateway.listen(0, '127.0.0.1')).port);
    try {
      t = await startTestApp('pglite', { gateway: testGateway({ engine: 'nginx', nginxInternalPort: taken }) });
      await expect(t.app.services.nativeGateway!.start()).rejects.toThrow(
        `GATEWAY_NGINX_INTERNAL_PORT: port ${taken} on 127.0.0.1 is in use`,
      );
    } finally {
      await busy.close();
    }
  }, 60_000);
});
