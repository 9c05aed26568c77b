import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../src/db/index.js';
import { containers, tenants } from '../../src/db/schema.js';

/** The tests' stand-in for Google's tagging server (test/fixtures/sgtm/server.mjs). */
export const STANDIN_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/sgtm/server.mjs');
export const STANDIN_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(STANDIN_SERVER)}`;

/** A CONTAINER_CONFIG as GTM gives it: base64 of `id=…&env=…&auth=…`. */
export function containerConfig(id = 'GTM-ABCD123', auth = 'Zq9SecretAuthValue') {
  return Buffer.from(`id=${id}&env=1&auth=${auth}`).toString('base64');
}

/** A tenant and an `sgtm` container for the tagging-server tables to refer to. */
export async function seedContainer(db: Db, containerId: string): Promise<void> {
  const tenantId = `ten_${containerId}`;
  await db.insert(tenants).values({ id: tenantId, name: 'Tagging servers', planId: 'business' });
  await db.insert(containers).values({
    id: containerId,
    tenantId,
    name: 'sGTM',
    region: 'eu-central',
    status: 'running',
    config: containerConfig(),
    runtime: 'sgtm',
    defaultHostname: `${containerId.replace(/_/g, '-')}.tagport.test`,
  });
}

/** Whether a process runs (a zombie, exited but not yet reaped by its new parent, does not). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    if (fs.existsSync('/proc/self/stat')) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether any process of the group led by `pid` runs (the replica's children included). */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .some((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return fields[0] !== 'Z' && Number(fields[2]) === pid;
      } catch {
        return false;
      }
    });
}
