import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-status-cli-'));
const env = { ...process.env, PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' };

async function tagport(...args: string[]) {
  const { stdout } = await run(process.execPath, [bin, ...args], { env, timeout: 90_000 });
  return JSON.parse(stdout);
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('tagport status … (operators on the command line)', () => {
  it('posts an incident, its updates through to resolved, and a maintenance window', async () => {
    const incident = await tagport(
      'status',
      'incident',
      '--component',
      'Gateway',
      '--title',
      'Elevated latency',
      '--status',
      'investigating',
      '--message',
      'Requests are slow.',
    );
    expect(incident).toMatchObject({ status: 'open', stage: 'investigating', source: 'operator' });
    const resolved = await tagport('status', 'update', incident.id, '--status', 'resolved', '--message', 'Fixed.');
    expect(resolved.status).toBe('resolved');
    expect(resolved.updates.map((update: { status: string }) => update.status)).toEqual(['resolved', 'investigating']);
    const maintenance = await tagport(
      'status',
      'maintenance',
      '--title',
      'Upgrade',
      '--starts-at',
      new Date(Date.now() + 3_600_000).toISOString(),
      '--ends-at',
      new Date(Date.now() + 7_200_000).toISOString(),
      '--components',
      'Database, API',
    );
    expect(maintenance).toMatchObject({ state: 'scheduled', components: ['Database', 'API'] });
    const tenant = await tagport('tenants', 'create', '--name', 'Operators');
    expect(await tagport('status', 'operator-add', '--tenant', tenant.id)).toEqual({
      tenant_id: tenant.id,
      platform_operator: true,
    });
  }, 400_000);

  it('refuses an unknown stage with the usage (exit 64) before opening the database', async () => {
    const failed = await run(
      process.execPath,
      [bin, 'status', 'update', 'pin_x', '--status', 'done', '--message', 'x'],
      {
        env,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect((failed as { code: number }).code).toBe(64);
    expect((failed as { stderr: string }).stderr).toContain('--status must be one of investigating');
  });
});
