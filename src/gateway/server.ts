import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InvalidationBus } from '../db/invalidation.js';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { markFronted } from './client.js';
import type { NativeRequest } from './native/meter-log.js';
import { type DelayedRequestSink, holdRequest, isDelayRequest, sentByPlatform } from './delay.js';
import { GatewayMeter, KEPT_LOGS_PER_CONTAINER } from './meter.js';
import { startLoop } from '../lib/loop.js';
import { listenOn } from '../lib/ports.js';
import { type Reply, writeGatewayError } from './answers.js';
import { HitLane, type LaneServe } from './hit-lane.js';
import { type RequestHead, splitTarget } from './http1/request-head.js';
import type { OutboundClient } from '../lib/outbound.js';
import type { ContainerTraffic, GatewayRoute, RoutesCursor } from '../modules/containers/traffic.js';
import type { GatewayFront } from './front.js';
import { FileProxy, proxiedFileAt } from './file-proxy.js';
import { ContainerHealth } from './health.js';
import { isGatewayHost, requestHost } from './host.js';
import { GATEWAY_ANSWER, type Outcome, Relay, type Routed } from './relay.js';
import { type BuiltinRuntime, GA4_COLLECT_PATH } from './runtime/index.js';
import { RouteCache } from './route-cache.js';
import { upstreamPath } from './upstream.js';

export interface GatewaySettings {
  /** Containers' default hostnames are `<id>.<baseDomain>`; the bare base domain is the gateway's own name. */
  baseDomain: string;
  flushMs: number;
  logSampleRate: number;
  upstreamTimeoutMs: number;
  /** The token of the platform's own requests (platformRequestToken); a random one, so none pass, when absent. */
  platformToken?: string;
  /** Serve builtin containers' GET hits on plain HTTP/1.1 connections below Node's http server (default true). */
  hitLane?: boolean;
}

export interface GatewayDependencies {
  /** Routes, usage and request logs: the gateway reads and writes the database only through this service. */
  traffic: ContainerTraffic;
  invalidations: InvalidationBus;
  outbound: OutboundClient;
  /** ACME challenges and the redirect to https, answered before routing. */
  front?: GatewayFront;
  /** Serves containers whose runtime is `builtin` (and every container's custom loader). */
  runtime?: BuiltinRuntime;
  /** Stores requests held by Request Delay (src/gateway/delay.ts); without it they are proxied as they come. */
  delayed?: DelayedRequestSink;
}

export { upstreamTarget } from './upstream.js';

/**
 * The built-in container runtime: an HTTP listener that routes by Host (a container's default hostname or
 * a verified custom domain) to the running container and proxies to its upstream tagging server with
 * undici (SSRF-guarded). Every routed request is metered (requests and body bytes) per UTC day, hostname and
 * status class; a sample is kept as request logs. Both are buffered and written in batches. `/healthz` on a
 * container's hostname is the container's health; on the gateway's own names, the gateway's liveness.
 */
export class Gateway {
  private server: http.Server | null = null;
  private readonly routes: RouteCache;
  private readonly meter = new GatewayMeter();
  private readonly health: ContainerHealth;
  private flushLoop: { stop(): Promise<void> } | null = null;
  /** With the nginx engine: the listener nginx hands requests to, and where nginx's own requests are read from. */
  private internal: http.Server | null = null;
  private native: NativeSource | null = null;
  private warming: Promise<unknown> | null = null;
  private readonly lanes: HitLane[] = [];
  private closing = false;

  private readonly traffic: ContainerTraffic;
  private readonly onError: (error: unknown) => void;
  private readonly front: GatewayFront | null;
  private readonly runtime: BuiltinRuntime | null;
  private readonly relay: Relay;
  private readonly files: FileProxy;
  private readonly delayed: DelayedRequestSink | null;
  private readonly platformToken: string;

  constructor(
    { traffic, invalidations, outbound, front, runtime, delayed }: GatewayDependencies,
    private readonly settings: GatewaySettings & { onError: (error: unknown) => void },
  ) {
    this.traffic = traffic;
    this.onError = settings.onError;
    this.platformToken = settings.platformToken ?? randomBytes(32).toString('base64url');
    this.front = front ?? null;
    this.runtime = runtime ?? null;
    this.delayed = delayed ?? null;
    this.relay = new Relay(
      {
        outbound,
        runtime: this.runtime,
        reporting: {
          record: (req, routed, outcome) => this.record(req, routed, outcome),
          refuse: (req, res, routed, status, code, message) => this.refuse(req, res, routed, status, code, message),
          onError: settings.onError,
        },
      },
      { upstreamTimeoutMs: settings.upstreamTimeoutMs },
    );
    this.files = new FileProxy(outbound.dispatcher, { timeoutMs: settings.upstreamTimeoutMs, onError: this.onError });
    this.health = new ContainerHealth(outbound, settings.upstreamTimeoutMs, () => this.runtime?.ready ?? false);
    this.routes = new RouteCache((hostname) => traffic.route(hostname));
    invalidations.subscribe((invalidation) => {
      this.routes.invalidate(invalidation);
      if (invalidation.kind === 'all') this.health.clear();
      else if (invalidation.kind === 'container') this.health.forget(invalidation.id);
    });
  }

  get listening(): boolean {
    if (this.native) return (this.internal?.listening ?? false) && this.native.running();
    return this.server?.listening ?? false;
  }

  /** The request handler of every listener: the plain one here and the TLS one (src/gateway/tls.ts). */
  readonly requestListener = (req: http.IncomingMessage, res: http.ServerResponse): void =>
    void this.handle(req, res).catch((error) => {
      // A client that went away mid-request (its body cut short: "aborted") is the client's doing, not ours.
      if (clientWentAway(req, res)) return void res.destroy();
      this.onError(error);
      if (!res.headersSent) writeGatewayError(res, 500, 'gateway_error', 'The gateway failed to handle the request.');
      else res.destroy();
    });

  async listen(port: number, host: string): Promise<string> {
    this.server = http.createServer(this.requestListener);
    this.addLane(this.server, this.laneHit);
    await listenOn(this.server, port, host);
    this.flushLoop = startLoop(() => this.flush(), this.settings.flushMs, this.onError);
    this.warmRoutes();
    const address = this.server.address() as AddressInfo;
    return `http://${address.address}:${address.port}`;
  }

  /**
   * With the nginx engine (src/gateway/native/): listens on a loopback port for what nginx does not proxy itself,
   * trusting the client address and scheme nginx reports only on requests carrying `secret`. Requests nginx
   * proxied itself are read from `native` and metered like the gateway's own. Returns `127.0.0.1:<port>`.
   */
  async listenInternal(secret: string, native: NativeSource, port = 0): Promise<string> {
    const expected = Buffer.from(secret);
    this.native = native;
    // nginx sends no Host for an HTTP/1.0 request without one (it refuses HTTP/1.1 requests without one itself).
    this.internal = http.createServer({ requireHostHeader: false }, (req, res) => {
      if (!vouchedByFront(req, expected))
        return void writeGatewayError(res, 403, 'forbidden', 'This listener serves the gateway front only.');
      this.requestListener(req, res);
    });
    this.addLane(this.internal, (req, reply) => vouchedByFront(req, expected) && this.laneHit(req, reply));
    await listenOn(this.internal, port, '127.0.0.1');
    this.flushLoop ??= startLoop(() => this.flush(), this.settings.flushMs, this.onError);
    this.warmRoutes();
    return `127.0.0.1:${(this.internal.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const lane of this.lanes) lane.close();
    await this.warming;
    await this.flushLoop?.stop();
    for (const server of [this.server, this.internal]) {
      if (!server) continue;
      server.closeIdleConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await this.relay.close();
    await this.flush();
  }

  /** Reads the routes of the fleet's hostnames in the background, once the gateway listens. */
  private warmRoutes() {
    this.warming ??= this.routes
      .warm<RoutesCursor>(
        (cursor, limit) => this.traffic.routesPage(cursor, limit),
        () => this.closing,
      )
      .catch(this.onError);
  }

  /** Writes buffered usage counts and sampled logs, then trims the logs of the containers that got new ones. */
  async flush(): Promise<void> {
    if (this.native) for (const request of await this.native.read()) this.recordNative(request);
    const batch = this.meter.take();
    try {
      await this.traffic.record(batch.usage, batch.logs);
    } catch (error) {
      batch.restore();
      throw error;
    }
    await this.traffic.trimLogs(batch.containers, KEPT_LOGS_PER_CONTAINER);
    await this.runtime?.flush();
  }

  private ok(res: http.ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end('{"status":"ok"}');
  }

  /** `/healthz` on a container's hostname: 200 only when it runs and its upstream answers, else 503 and why. */
  private async containerHealth(res: http.ServerResponse, route: GatewayRoute) {
    const problem = await this.health.problem(route);
    if (!problem) return this.ok(res);
    writeGatewayError(res, 503, problem.code, problem.message);
  }

  /** The gateway's own answer to a routed request, metered like any other. */
  private refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    { route, hostname, started }: Routed,
    status: number,
    code: string,
    message: string,
  ) {
    const responseBytes = writeGatewayError(res, status, code, message);
    this.record(req, { route, hostname, started }, { ...GATEWAY_ANSWER, status, responseBytes });
  }

  private record(req: RequestHead, { route, hostname, started }: Routed, outcome: Outcome) {
    this.meter.count(route.containerId, hostname, outcome.status, outcome.requestBytes, outcome.responseBytes);
    if (Math.random() < this.settings.logSampleRate) {
      this.meter.sample({
        containerId: route.containerId,
        at: Date.now(),
        hostname,
        method: req.method ?? 'GET',
        path: (req.url ?? '/').slice(0, 2000),
        statusCode: outcome.status,
        durationMs: Math.round(performance.now() - started),
        upstream: outcome.upstream,
        upstreamMs: outcome.upstreamMs === null ? null : Math.round(outcome.upstreamMs),
      });
    }
  }

  /** A request nginx proxied itself, metered and sampled as if the gateway had. */
  private recordNative(request: NativeRequest & { upstream: string | null }) {
    const { containerId, hostname, status } = request;
    this.meter.count(containerId, hostname, status, request.requestBytes, request.responseBytes);
    if (Math.random() >= this.settings.logSampleRate) return;
    this.meter.sample({
      containerId,
      at: request.at,
      hostname,
      method: request.method,
      path: request.path.slice(0, 2000),
      statusCode: status,
      durationMs: request.durationMs,
      upstream: request.upstream,
      upstreamMs: request.upstreamMs === null ? null : Math.round(request.upstreamMs),
    });
  }

  private addLane(server: http.Server, serve: LaneServe) {
    if (!this.runtime || this.settings.hitLane === false) return;
    const lane = new HitLane(serve, this.onError);
    lane.attach(server);
    this.lanes.push(lane);
  }

  /**
   * A plain GET the hit lane read: served when it is a GA4 hit for a running builtin container that nothing else
   * applies to (a redirect to https, Request Delay, the file proxy), as handle() would serve it; false otherwise,
   * with nothing done, and handle() serves it.
   */
  private readonly laneHit: LaneServe = (req, reply) => {
    const { path, query } = splitTarget(req.url!);
    if (path !== GA4_COLLECT_PATH) return false;
    const started = performance.now();
    const host = requestHost(req);
    if (host.problem !== undefined) return false;
    const { hostname } = host;
    const found = this.routes.get(hostname, started);
    if (found instanceof Promise)
      return found.then(({ route }) => this.laneCollect(req, reply, query, { route, hostname, started }));
    return this.laneCollect(req, reply, query, { route: found.route, hostname, started });
  };

  private laneCollect(
    req: RequestHead,
    reply: Reply,
    query: string,
    { route, hostname, started }: { route: GatewayRoute | null; hostname: string; started: number },
  ): boolean | Promise<boolean> {
    if (route?.status !== 'running' || route.runtime !== 'builtin' || !this.runtime) return false;
    if (!sentByPlatform(req, this.platformToken) && this.front?.redirectLocation(req, hostname)) return false;
    if ((this.delayed && isDelayRequest(route.settings, req.url!)) || proxiedFileAt(route, req.url!)) return false;
    const routed = { route, hostname, started };
    const answered = this.runtime.collectGet(req, reply, route, query);
    if (!(answered instanceof Promise)) {
      this.record(req, routed, { ...GATEWAY_ANSWER, ...answered });
      return true;
    }
    return answered.then((outcome) => {
      this.record(req, routed, { ...GATEWAY_ANSWER, ...outcome });
      return true;
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const host = requestHost(req);
    if (host.problem !== undefined) return void writeGatewayError(res, 400, 'bad_request', host.problem);
    const { hostname } = host;
    if (this.front?.challenged(req, res)) return;
    if (req.url === '/healthz' && isGatewayHost(hostname, this.settings.baseDomain)) return this.ok(res);
    const found = this.routes.get(hostname, started);
    const { route, upstream } = found instanceof Promise ? await found : found;
    if (!route || route.status === 'deleted')
      return void writeGatewayError(res, 404, 'unknown_host', `No container serves ${hostname || 'this host'}.`);
    if (!sentByPlatform(req, this.platformToken) && this.front?.redirected(req, res, hostname)) return;
    if (req.url === '/healthz') return this.containerHealth(res, route);
    const routed = { route, hostname, started };
    if (route.status !== 'running')
      return this.refuse(req, res, routed, 503, 'container_not_running', `The container is ${route.status}.`);
    if (this.delayed && isDelayRequest(route.settings, req.url ?? '/'))
      return this.record(req, routed, await holdRequest(this.delayed, req, res, route.containerId, this.onError));
    const proxiedFile = proxiedFileAt(route, req.url ?? '/');
    if (proxiedFile)
      return this.record(req, routed, { ...GATEWAY_ANSWER, ...(await this.files.serve(req, res, route, proxiedFile)) });
    if (route.runtime === 'sgtm') return this.relay.toReplicas(req, res, routed);
    if (this.runtime && (route.runtime === 'builtin' || this.runtime.servesLoader(route, req.url ?? '/'))) {
      const answered = this.runtime.handle(req, res, route);
      return this.record(req, routed, {
        ...GATEWAY_ANSWER,
        ...(answered instanceof Promise ? await answered : answered),
      });
    }
    if (!route.upstreamUrl)
      return this.refuse(
        req,
        res,
        routed,
        503,
        'no_upstream',
        'The container has no upstream tagging server configured.',
      );
    if (!upstream) {
      const responseBytes = this.relay.upstreamFailed(res, route, new Error('The upstream URL cannot be parsed.'));
      return this.record(req, routed, { ...GATEWAY_ANSWER, status: 502, responseBytes });
    }
    const path = upstreamPath(upstream, req.url ?? '/');
    if (path === null)
      return this.refuse(
        req,
        res,
        routed,
        400,
        'invalid_request_target',
        'The request target must be a path, such as /g/collect?v=2.',
      );
    await this.relay.toUpstream(req, res, routed, upstream, path);
  }
}

/** The native data plane as the gateway sees it: whether nginx runs, and the requests it proxied since last read. */
export interface NativeSource {
  running(): boolean;
  read(): Promise<Array<NativeRequest & { upstream: string | null }>>;
}

/**
 * Whether the request carries the front's secret (nginx's requests to the internal listener); if so, what nginx
 * reports of its client (address, scheme, authority) is recorded for the request.
 */
function vouchedByFront(req: RequestHead, secret: Buffer): boolean {
  const given = Buffer.from(String(req.headers['x-tagport-front'] ?? ''));
  if (given.length !== secret.length || !timingSafeEqual(given, secret)) return false;
  markFronted(req, {
    address: String(req.headers['x-tagport-client'] ?? ''),
    tls: req.headers['x-tagport-scheme'] === 'https',
    authority: String(req.headers['x-tagport-authority'] ?? ''),
  });
  return true;
}

/** The client closed its connection before its request was read whole or answered. */
function clientWentAway(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  return (req.destroyed && !req.complete) || (res.destroyed && !res.writableFinished);
}
