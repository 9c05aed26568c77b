import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../src/db/index.js';
import { containers, tenants } from '../../src/db/schema.js';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';

/** The tests' stand-in for Google's tagging server (test/fixtures/sgtm/server.mjs). */
export const STANDIN_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/sgtm/server.mjs');
export const STANDIN_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(STANDIN_SERVER)}`;

/** The host the tests' preview URL names (it resolves nowhere: the stand-in is told where to connect). */
export const PREVIEW_HOST = 'preview.sgtm.test';

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

/**
 * The gateway's part for preview requests: an https server for PREVIEW_HOST (its CA given to the replicas through
 * NODE_EXTRA_CA_CERTS) that hands each request to the container's preview replica, as the gateway would.
 */
export async function startPreviewGateway(previewEndpoint: () => Promise<string | undefined>) {
  const certs = generateTestCertificates([PREVIEW_HOST]);
  const caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sgtm-ca-')), 'ca.pem');
  fs.writeFileSync(caFile, certs.caPem);
  const seen: { servername: string | false | null; host: string | undefined; preview: string | undefined }[] = [];
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, async (req, res) => {
    seen.push({
      servername: (req.socket as TLSSocket).servername,
      host: req.headers.host,
      preview: req.headers['x-gtm-server-preview'] as string | undefined,
    });
    const target = await previewEndpoint();
    if (!target) return void res.writeHead(503).end();
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    caFile,
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
