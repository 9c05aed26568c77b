import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';
import { freePort, waitFor } from './processes.js';

const bin = path.resolve('bin/tagport.js');

/** One `tagport serve --role …` process on loopback. */
export interface TagportProcess {
  name: string;
  roles: string;
  base: string;
  /** The gateway's own listener (`gateway` role only). */
  gatewayUrl: string | null;
  child: ChildProcess;
  /** Set once the test sent SIGTERM or SIGKILL: the process is leaving, its refused connections are expected. */
  leaving: boolean;
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  output(): string;
  readiness(): Promise<{ status: number; checks: Record<string, string> }>;
}

/** Starts `tagport serve --role <roles>` and waits until its /readyz answers 200. */
export async function startTagport(
  name: string,
  roles: string,
  env: NodeJS.ProcessEnv,
  started: Set<TagportProcess>,
): Promise<TagportProcess> {
  const port = await freePort();
  const gatewayPort = roles.includes('gateway') ? await freePort() : 0;
  const child = spawn(process.execPath, [bin, 'serve', '--role', roles], {
    env: { ...env, PORT: String(port), GATEWAY_PORT: String(gatewayPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const process_: TagportProcess = {
    name,
    roles,
    base,
    gatewayUrl: gatewayPort ? `http://127.0.0.1:${gatewayPort}` : null,
    child,
    leaving: false,
    kill(signal) {
      process_.leaving = true;
      child.kill(signal);
    },
    exited,
    output: () => output,
    async readiness() {
      const response = await request(`${base}/readyz`, { reset: true });
      const body = (await response.body.json()) as { checks: Record<string, string> };
      return { status: response.statusCode, checks: body.checks };
    },
  };
  started.add(process_);
  await waitFor(
    async () => child.exitCode === null && (await process_.readiness()).status === 200,
    120_000,
    `${name} (${roles}) to be ready: ${output.slice(-2000)}`,
  );
  return process_;
}

/** Stops every process still running: SIGTERM, then SIGKILL for those that have not exited after `graceMs`. */
export async function stopAll(started: Set<TagportProcess>, graceMs = 15_000): Promise<void> {
  const running = [...started].filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of running) {
    // A process paused with SIGSTOP must run again to handle SIGTERM.
    p.child.kill('SIGCONT');
    p.child.kill('SIGTERM');
  }
  await Promise.all(
    running.map(async (p) => {
      const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
      await p.exited;
      clearTimeout(timer);
    }),
  );
}

async function listen(server: http.Server | https.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Requests to a path of a holding server are held (not answered) while its gate is closed. */
class Gate {
  held: Array<() => void> = [];
  arrivals = 0;
  /** Requests whose connection closed before they were answered (their client died). */
  cutOff = 0;
  open = false;

  release() {
    this.open = true;
    for (const answer of this.held.splice(0)) answer();
  }
}

function holdOrAnswer(gates: Map<string, Gate>, key: string, req: http.IncomingMessage, answer: () => void) {
  const gate = gates.get(key);
  if (!gate) return answer();
  gate.arrivals++;
  if (gate.open) return answer();
  let cutOff = false;
  req.socket.once('close', () => {
    cutOff = true;
    gate.cutOff++;
  });
  // A request whose client died while it was held stays unanswered.
  gate.held.push(() => {
    if (!cutOff) answer();
  });
}

export const FIXTURE_PAGE = `<!doctype html><html><head><title>Shop</title>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-TOPOLOGY1"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','G-TOPOLOGY1');</script>
</head><body><h1>Shop</h1></body></html>`;

/**
 * The HTTPS site scans and monitors look at (scans take https URLs only): `/page` (a page with GA4), `/health`, and
 * `/held/<key>` (the same page, held while the gate `<key>` is closed). Its certificate, for 127.0.0.1, comes from a
 * throw-away CA written to `caFile`: the processes trust it through NODE_EXTRA_CA_CERTS.
 */
export async function startSite(caFile: string) {
  const certs = generateTestCertificates(['127.0.0.1']);
  fs.writeFileSync(caFile, certs.caPem);
  const gates = new Map<string, Gate>();
  const hits = new Map<string, number>();
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const page = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FIXTURE_PAGE);
    if (url === '/health') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
    if (url.startsWith('/held/')) return holdOrAnswer(gates, url.slice('/held/'.length), req, page);
    page();
  });
  const url = await listen(server);
  return {
    url,
    hits: (path: string) => hits.get(path) ?? 0,
    /** Closes a gate: requests for `/held/<key>` wait until `release()`. */
    hold(key: string): Gate {
      const gate = new Gate();
      gates.set(key, gate);
      return gate;
    },
    close: () => closeServer(server),
  };
}

export interface Delivery {
  path: string;
  eventId: string;
  type: string;
  data: Record<string, unknown>;
  /** The receiver answered 200 (the delivery counts as done); false: the sender's connection closed first. */
  answered: boolean;
}

/** A webhook endpoint: records every delivery; deliveries to `/held` wait while its gate is closed. */
export async function startReceiver() {
  const deliveries: Delivery[] = [];
  const gates = new Map<string, Gate>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const payload = JSON.parse(body || '{}');
      const delivery: Delivery = {
        path: req.url ?? '/',
        eventId: String(req.headers['tagport-event-id']),
        type: payload.type,
        data: payload.data ?? {},
        answered: false,
      };
      deliveries.push(delivery);
      holdOrAnswer(gates, delivery.path.slice(1), req, () => {
        delivery.answered = true;
        res.writeHead(200).end('ok');
      });
    });
  });
  const url = await listen(server);
  return {
    url,
    deliveries,
    hold(path: string): Gate {
      const gate = new Gate();
      gates.set(path.replace(/^\//, ''), gate);
      return gate;
    },
    close: () => closeServer(server),
  };
}

/** The tagging server containers forward to: answers at once, `/slow` after `slowMs`. */
export async function startTaggingServer(slowMs: number) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '/');
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`tagging server saw ${req.url}`);
    if (req.url?.startsWith('/slow')) setTimeout(answer, slowMs);
    else answer();
  });
  const url = await listen(server);
  return { url, seen, close: () => closeServer(server) };
}
