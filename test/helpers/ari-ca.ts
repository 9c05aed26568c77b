import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { type Pebble, selfSignedLoopbackCertificate } from './pebble.js';

export interface SuggestedWindow {
  start: Date;
  end: Date;
}

/** An order the stand-in passed to Pebble: its identifiers and the `replaces` it named (RFC 9773 §5), if any. */
export interface SeenOrder {
  identifiers: string[];
  replaces: string | null;
}

/**
 * The certID (RFC 9773 §4.1) of a certificate, computed here apart from the code under test: @peculiar/x509 reads the
 * Authority Key Identifier and the serial number, whose DER content octets start with a zero when its high bit is set.
 */
export function referenceCertId(pem: string): string {
  const certificate = new x509.X509Certificate(pem);
  const aki = certificate.getExtension(x509.AuthorityKeyIdentifierExtension);
  if (!aki?.keyId) throw new Error('no authority key identifier');
  const hex = certificate.serialNumber;
  let serial = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  if (serial[0] >= 0x80) serial = Buffer.concat([Buffer.from([0]), serial]);
  return `${Buffer.from(aki.keyId, 'hex').toString('base64url')}.${serial.toString('base64url')}`;
}

/**
 * A CA with ACME Renewal Information in front of Pebble 2.4.0, which has none: an HTTPS proxy that passes every ACME
 * request to Pebble unchanged (Pebble builds its URLs, and checks the URL each JWS was signed for, from the Host
 * header, which stays the proxy's), adds `renewalInfo` to the directory when `offersRenewalInfo`, and answers
 * `GET /renewal-info/<certID>` itself with the window the test sets. It records the orders it saw with their
 * `replaces`, the certificates Pebble issued (by their certID, computed with referenceCertId), and each certID asked
 * about, so a test can check that Tagport asked about the certificates it was given.
 */
export async function startAriCa(pebble: Pebble, { offersRenewalInfo }: { offersRenewalInfo: boolean }) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-ari-ca-'));
  const listener = selfSignedLoopbackCertificate(directory);
  const upstream = new URL(pebble.directoryUrl);
  const orders: SeenOrder[] = [];
  /** Certificates Pebble issued through the proxy, by certID. */
  const issued = new Map<string, string>();
  /** Every certID asked about, in order; those of no certificate Pebble issued are answered 404. */
  const asked: string[] = [];
  const state = {
    /** The window for a certificate without one of its own. */
    window: (): SuggestedWindow => ({ start: new Date(Date.now() + 300_000), end: new Date(Date.now() + 600_000) }),
    /** Windows of particular certificates, by certID. */
    windows: new Map<string, SuggestedWindow>(),
    explanationUrl: null as string | null,
    retryAfter: '21600' as string | null,
    /** When set, renewalInfo answers this status with a problem document instead of a window. */
    failWith: null as number | null,
  };
  let newOrderPath: string | null = null;

  const server = https.createServer({ cert: listener.cert, key: fs.readFileSync(listener.keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      if (offersRenewalInfo && req.method === 'GET' && url.startsWith('/renewal-info/'))
        return renewalInfo(decodeURIComponent(url.slice('/renewal-info/'.length)), res);
      if (req.method === 'POST' && url === newOrderPath) orders.push(seenOrder(body));
      forward(req, body, res, url);
    });
  });

  function renewalInfo(certId: string, res: http.ServerResponse) {
    asked.push(certId);
    const problem = (status: number, detail: string) =>
      res
        .writeHead(status, { 'content-type': 'application/problem+json' })
        .end(JSON.stringify({ type: 'urn:ietf:params:acme:error:malformed', detail }));
    if (state.failWith) return problem(state.failWith, 'renewal information is unavailable');
    if (!issued.has(certId)) return problem(404, `no certificate ${certId}`);
    const window = state.windows.get(certId) ?? state.window();
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(state.retryAfter ? { 'retry-after': state.retryAfter } : {}),
    });
    res.end(
      JSON.stringify({
        suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
        ...(state.explanationUrl ? { explanationURL: state.explanationUrl } : {}),
      }),
    );
  }

  function forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, url: string) {
    const headers = { ...req.headers, 'content-length': String(body.length) };
    const outgoing = https.request(
      { host: upstream.hostname, port: upstream.port, path: url, method: req.method, headers, ca: pebble.directoryCa },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let content: Buffer = Buffer.concat(chunks);
          const type = String(answer.headers['content-type'] ?? '');
          if (url === upstream.pathname && answer.statusCode === 200) content = withRenewalInfo(content);
          if (type.startsWith('application/pem-certificate-chain')) {
            const leaf = content
              .toString()
              .split(/(?<=-----END CERTIFICATE-----)/)[0]
              .trim();
            issued.set(referenceCertId(leaf), leaf);
          }
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(content.length) }).end(content);
        });
      },
    );
    outgoing.on('error', (error) => res.writeHead(502).end(String(error)));
    outgoing.end(body);
  }

  function withRenewalInfo(content: Buffer): Buffer {
    const dir = JSON.parse(content.toString()) as Record<string, unknown>;
    newOrderPath = new URL(String(dir.newOrder)).pathname;
    if (offersRenewalInfo) dir.renewalInfo = `${base}/renewal-info`;
    return Buffer.from(JSON.stringify(dir));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    directoryUrl: `${base}${upstream.pathname}`,
    /** The proxy's own certificate: what the app must trust to reach it. */
    directoryCa: listener.cert,
    state,
    orders,
    issued,
    asked,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type AriCa = Awaited<ReturnType<typeof startAriCa>>;

/** The payload of a new-order JWS (flattened JSON serialization): its identifiers and `replaces`. */
function seenOrder(body: Buffer): SeenOrder {
  const jws = JSON.parse(body.toString()) as { payload: string };
  const payload = JSON.parse(Buffer.from(jws.payload, 'base64url').toString()) as {
    identifiers?: Array<{ value: string }>;
    replaces?: string;
  };
  return {
    identifiers: (payload.identifiers ?? []).map((identifier) => identifier.value),
    replaces: payload.replaces ?? null,
  };
}
