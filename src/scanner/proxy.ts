import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { ScanTargetRefusedError } from './errors.js';
import { bareHost, type SsrfGuard } from './ssrf.js';

/**
 * The SSRF guard for browsers: a forward proxy on 127.0.0.1 that every request of a scan's browser context (and of the
 * Lighthouse browser) goes through, including redirect hops, iframes, workers and WebSockets — which request
 * interception (page.route) does not all see: Playwright does not call route handlers for redirects.
 * For each CONNECT tunnel or plain-HTTP request the proxy checks the host with the scan's guard and connects to the
 * address the guard checked (no second DNS lookup, so no rebinding window).
 *
 * It also applies the MAP/EXCLUDE rules of the scanner's host-resolver-rules to its own connections, so the same
 * rules that keep Chromium off the outside network keep the proxy off it too (tests map vendor hosts to a local
 * fixture server this way). The guard still judges the requested host first when it resolves; a mapped name that
 * system DNS does not know is sent to its MAP target all the same, which is trusted operator configuration.
 */

export interface HostRule {
  kind: 'map' | 'exclude';
  pattern: RegExp;
  /** For map rules: null means ~NOTFOUND. */
  target: { host: string; port: number | null } | null;
}

/** Parses the MAP/EXCLUDE subset of Chromium's --host-resolver-rules ("MAP a.test 127.0.0.1:8443, MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"). */
export function parseHostRules(rules: string | undefined): HostRule[] {
  if (!rules) return [];
  const toPattern = (glob: string) =>
    new RegExp(
      `^${glob
        .toLowerCase()
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')}$`,
    );
  const out: HostRule[] = [];
  for (const raw of rules.split(',')) {
    const parts = raw.trim().split(/\s+/);
    if (parts[0]?.toUpperCase() === 'EXCLUDE' && parts[1])
      out.push({ kind: 'exclude', pattern: toPattern(parts[1]), target: null });
    if (parts[0]?.toUpperCase() === 'MAP' && parts[1] && parts[2]) {
      if (parts[2] === '~NOTFOUND') out.push({ kind: 'map', pattern: toPattern(parts[1]), target: null });
      else {
        const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(parts[2]);
        if (match)
          out.push({
            kind: 'map',
            pattern: toPattern(parts[1]),
            target: { host: bareHost(match[1]), port: match[2] ? Number(match[2]) : null },
          });
      }
    }
  }
  return out;
}

/** What the rules do with a host: unchanged (null), not found, or sent elsewhere. */
export function applyHostRules(
  rules: HostRule[],
  host: string,
): { notFound: true } | { host: string; port: number | null } | null {
  const name = host.toLowerCase();
  if (rules.some((rule) => rule.kind === 'exclude' && rule.pattern.test(name))) return null;
  const rule = rules.find((candidate) => candidate.kind === 'map' && candidate.pattern.test(name));
  if (!rule) return null;
  return rule.target ? { host: rule.target.host, port: rule.target.port } : { notFound: true };
}

export interface GuardProxy {
  /** http://127.0.0.1:port */
  server: string;
  /** Requests refused by the guard, as "host:port" for tunnels or the URL for plain HTTP. */
  refused: Array<{ target: string; host: string; error: ScanTargetRefusedError }>;
  close(): Promise<void>;
}

/** DNS has no address for the name (as opposed to a refusal by the guard or a resolver failure). */
function isNameNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME';
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  if (!match) return null;
  return { host: bareHost(match[1]).toLowerCase(), port: match[2] ? Number(match[2]) : defaultPort };
}

export async function startGuardProxy(options: { guard: SsrfGuard; hostRules?: string }): Promise<GuardProxy> {
  const rules = parseHostRules(options.hostRules);
  const refused: GuardProxy['refused'] = [];
  const sockets = new Set<Duplex>();

  /** The address to connect to for host:port, after the guard and the host rules; throws when refused or unresolvable. */
  const destination = async (host: string, port: number, label: string): Promise<{ address: string; port: number }> => {
    try {
      const mapped = applyHostRules(rules, host);
      const notFound = () =>
        Object.assign(new Error(`${host} is not resolvable under the host rules`), { code: 'ENOTFOUND' });
      // Names the rules drop are not looked up at all; IP literals are still checked, so they are reported as refused.
      if (mapped && 'notFound' in mapped && !net.isIP(host)) throw notFound();
      if (mapped && 'notFound' in mapped) {
        await options.guard.checkHost(host);
        throw notFound();
      }
      // A MAP target is operator configuration (like Chromium's own rules), so it is used as given, and a mapped
      // name needs no DNS record of its own: only a name that does resolve is judged by what it resolves to.
      if (mapped) {
        await options.guard.checkHost(host).catch((error: unknown) => {
          if (!isNameNotFound(error)) throw error;
        });
        return { address: mapped.host, port: mapped.port ?? port };
      }
      const checked = await options.guard.checkHost(host);
      return { address: checked.addresses[0], port };
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) refused.push({ target: label.slice(0, 2000), host, error });
      throw error;
    }
  };

  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = http.createServer((req, res) => {
    // Plain HTTP through the proxy: the request line carries the absolute URL.
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    const host = bareHost(url.hostname).toLowerCase();
    destination(host, url.port ? Number(url.port) : 80, url.href).then(
      (target) => {
        const headers = { ...req.headers };
        delete headers['proxy-connection'];
        delete headers['proxy-authorization'];
        const upstream = http.request(
          {
            host: target.address,
            port: target.port,
            method: req.method,
            path: `${url.pathname}${url.search}`,
            headers,
            setHost: false,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        req.pipe(upstream);
      },
      // Dropping the connection makes the browser fail the request (an error page would count as a response).
      () => req.socket.destroy(),
    );
  });
  server.on('connection', track);
  // HTTPS and WebSockets: CONNECT host:port, then a raw tunnel (TLS stays end to end between browser and site).
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const authority = req.url ?? '';
    const parsed = splitHostPort(authority, 443);
    if (!parsed) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    destination(parsed.host, parsed.port, authority).then(
      (target) => {
        const upstream = net.connect(target.port, target.address);
        track(upstream);
        upstream.once('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.once('error', () => {
          if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        });
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      },
      (error: unknown) => {
        client.end(`HTTP/1.1 ${error instanceof ScanTargetRefusedError ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
      },
    );
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
