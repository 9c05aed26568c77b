import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/processes.js';
import { alive, groupAlive, STANDIN_SERVER } from '../../helpers/tagging-servers.js';

describe('the stand-in tagging server', () => {
  it('refuses a missing or malformed CONTAINER_CONFIG on stderr and exits 1', async () => {
    for (const [config, message] of [
      [undefined, 'Invalid CONTAINER_CONFIG: it is not set'],
      ['not base64!', 'Invalid CONTAINER_CONFIG: it is not base64'],
      [Buffer.from('id=nope&env=1&auth=abcdefgh').toString('base64'), 'the container id "nope" is not a GTM-… id'],
    ] as const) {
      const child = spawn(process.execPath, [STANDIN_SERVER], {
        env: { PATH: process.env.PATH, PORT: '0', ...(config ? { CONTAINER_CONFIG: config } : {}) },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(message);
    }
  });
});

describe('a supervisor killed with SIGKILL', () => {
  it('takes its tagging servers with it within a few seconds', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/fixtures/sgtm/host-supervisor.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids = await new Promise<number[]>((resolve, reject) => {
      let output = '';
      host.stdout.on('data', (chunk) => {
        output += chunk;
        const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line) resolve(JSON.parse(line).pids);
      });
      host.on('exit', (code) => reject(new Error(`the host exited with ${code}`)));
    });
    try {
      expect(pids).toHaveLength(2);
      for (const pid of pids) expect(alive(pid)).toBe(true);
      host.kill('SIGKILL');
      await waitFor(async () => pids.every((pid) => !alive(pid) && !groupAlive(pid)), 5_000, 'the replicas to exit');
    } finally {
      host.kill('SIGKILL');
      for (const pid of pids.filter(groupAlive)) process.kill(-pid, 'SIGKILL');
    }
  }, 60_000);
});
