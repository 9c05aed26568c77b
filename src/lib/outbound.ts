import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { ScanTargetRefusedError } from '../scanner/errors.js';
import { bareHost, SsrfGuard, type ResolveHost } from '../scanner/ssrf.js';

export interface OutboundOptions {
  /** Test-only: allow loopback/private targets and plain http. */
  allowPrivateNetworks: boolean;
  resolveHost?: ResolveHost;
  /** Extra trusted CAs, besides the system's (EXTRA_CA_CERTS; tests' throw-away CA). */
  ca?: string[];
}

export interface OutboundResponse {
  statusCode: number;
  body: string;
  timings: { ttfb_ms: number; total_ms: number };
}

export class OutboundRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 1024 * 1024;
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Outbound HTTP for monitors, webhooks and the gateway with the scanner's SSRF guard on every connection:
 * the address connected to is the address that was checked (the lookup itself goes through the guard, so no
 * rebinding). Node skips the lookup for IP literals, so the connector checks those itself.
 */
export class OutboundClient {
  private readonly agent: Agent;

  constructor(private readonly options: OutboundOptions) {
    this.agent = new Agent({ connect: this.guardedConnector(), keepAliveTimeout: 4_000 });
  }

  /** Validates scheme and target before any request: https only unless private networks are allowed (tests). */
  async checkUrl(raw: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundRefusedError('invalid_url', 'Not an absolute URL.');
    }
    if (url.protocol !== 'https:' && !(this.options.allowPrivateNetworks && url.protocol === 'http:')) {
      throw new OutboundRefusedError('https_required', 'Only https URLs are allowed.');
    }
    if (url.username || url.password)
      throw new OutboundRefusedError('credentials_in_url', 'URLs must not contain credentials.');
    try {
      await this.guard().checkUrl(url);
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) throw new OutboundRefusedError('private_address', error.message);
      throw new OutboundRefusedError('unresolvable', `${url.hostname} does not resolve.`);
    }
    return url;
  }

  /** The addresses a host (name or IP literal) resolves to, each passed by the SSRF guard; throws when refused. */
  async resolveGuarded(host: string): Promise<string[]> {
    return (await this.guard().checkHost(bareHost(host))).addresses;
  }

  private guard(): SsrfGuard {
    return new SsrfGuard({
      allowPrivateNetworks: this.options.allowPrivateNetworks,
      resolveHost: this.options.resolveHost,
    });
  }

  /** Node's `ca` replaces the trusted roots: the extra CAs are added to them (nothing when there are none). */
  private trustedCa(): { ca?: string[] } {
    return this.options.ca?.length ? { ca: [...tls.rootCertificates, ...this.options.ca] } : {};
  }

  private guardedConnector(): buildConnector.connector {
    const connect = buildConnector({
      lookup: this.guardedLookup(),
      ...this.trustedCa(),
    });
    return (options, callback) => {
      const host = bareHost(options.hostname);
      if (!net.isIP(host)) return connect(options, callback);
      this.guard()
        .checkHost(host)
        .then(
          () => connect(options, callback),
          (error: Error) => callback(error, null),
        );
    };
  }

  private guardedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.guard()
        .checkHost(bareHost(hostname))
        .then(
          (resolved) => {
            const entries = resolved.addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
            // Cast: LookupFunction's callback type is the single-address form; with `all` Node expects the array form.
            if (options.all) (callback as unknown as (error: null, all: typeof entries) => void)(null, entries);
            else callback(null, entries[0].address, entries[0].family);
          },
          (error: Error) =>
            callback(
              Object.assign(error, { code: (error as { code?: string }).code ?? 'EREFUSED' }) as NodeJS.ErrnoException,
              '',
              4,
            ),
        );
    };
  }

  /** One request with a hard timeout; the body is read up to 1 MB. Errors carry a short `code`. */
  async send(
    url: URL,
    init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
  ): Promise<OutboundResponse> {
    const started = performance.now();
    const signal = AbortSignal.timeout(init.timeoutMs);
    const response = await request(url, {
      method: init.method as 'GET',
      headers: { 'user-agent': 'Tagport/1.0 (+monitoring)', ...init.headers },
      body: init.body,
      dispatcher: this.agent,
      signal,
      headersTimeout: init.timeoutMs,
      bodyTimeout: init.timeoutMs,
    });
    const ttfb = performance.now() - started;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) break;
      chunks.push(chunk as Buffer);
    }
    response.body.destroy();
    return {
      statusCode: response.statusCode,
      body: Buffer.concat(chunks).toString('utf8'),
      timings: { ttfb_ms: Math.round(ttfb), total_ms: Math.round(performance.now() - started) },
    };
  }

  /**
   * A raw connection to an origin, through the guard: plain, or TLS with SNI, HTTP/1.1 by ALPN and the extra CAs.
   * For senders that speak HTTP themselves (the built-in runtime's pipelined forwards).
   */
  async connect(origin: URL, timeoutMs = CONNECT_TIMEOUT_MS): Promise<net.Socket> {
    const host = bareHost(origin.hostname);
    const [address] = await this.resolveGuarded(host);
    const secure = origin.protocol === 'https:';
    const port = Number(origin.port || (secure ? 443 : 80));
    const socket = secure
      ? tls.connect({
          host: address,
          port,
          ...(net.isIP(host) ? {} : { servername: host }),
          ALPNProtocols: ['http/1.1'],
          ...this.trustedCa(),
        })
      : net.connect({ host: address, port });
    return connected(socket, secure, timeoutMs, origin.host);
  }

  /** The guarded undici dispatcher, for streaming callers (the gateway's proxy). */
  get dispatcher(): Agent {
    return this.agent;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * The socket once it is connected (and, for TLS, once the handshake is done), Nagle off; rejected with the socket
 * destroyed when that fails or takes longer than `timeoutMs` (code `CONNECT_TIMEOUT`).
 */
export function connected(socket: net.Socket, secure: boolean, timeoutMs: number, host: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(Object.assign(new Error(`Connecting to ${host} timed out.`), { code: 'CONNECT_TIMEOUT' })),
    );
    socket.once('error', fail);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}
