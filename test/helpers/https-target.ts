import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export type Handler = (request: ReceivedRequest) => { status: number; body?: string; delayMs?: number } | 'hang';

/**
 * A real https server on 127.0.0.1 with a throw-away CA; `handler` decides each answer, `received` records them. Its
 * certificate is for 127.0.0.1, or for `hosts` (names a test DNS server points at 127.0.0.1).
 */
export async function startHttpsTarget(handler: Handler, { hosts = ['127.0.0.1'] }: { hosts?: string[] } = {}) {
  const certs = generateTestCertificates(hosts);
  const received: ReceivedRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const answer = handler(request);
      if (answer === 'hang') return void hanging.add(res);
      setTimeout(
        () => res.writeHead(answer.status, { 'content-type': 'text/html' }).end(answer.body ?? ''),
        answer.delayMs ?? 0,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ca: certs.caPem,
    port,
    url: (path: string, host = '127.0.0.1') => `https://${host}:${port}${path}`,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
