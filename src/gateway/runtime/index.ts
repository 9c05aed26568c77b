import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import type { Reply } from '../answers.js';
import { type RequestHead, splitTarget } from '../http1/request-head.js';
import type { RuntimeConfig } from '../../config/runtime.js';
import type { ContainerTraffic, GatewayRoute } from '../../modules/containers/traffic.js';
import type { ForwardJob } from './forward-queue.js';
import { Forwarding } from './forwarding.js';
import { forwardedHit, Ga4Forward, type Ga4Hit, parseCollect } from './ga4.js';
import { parseDirectEvent } from './meta/direct-event.js';
import { RuntimeMeter } from './meter.js';
import { powerupEventParams, setGa4EventParams } from './powerups/event-params.js';
import { anonymize, anonymizeGa4Params, type GeoFiles } from './powerups/index.js';
import { ga4Outgoing, type OutgoingRecorder } from './outgoing.js';
import { PipelinedSender } from './pipelined-sender.js';
import { answer, corsHeaders, errorAnswer, type RuntimeAnswer, readBody } from './replies.js';
import { CustomLoader } from './custom-loader.js';
import { ScriptCache } from './script-cache.js';
import type { RuntimeEvent, Visitor } from './types.js';
import { Powerups, type Visit } from './visit.js';
import { fpidSetCookies, stableClientId, trustedProxies } from './visitor.js';

/** The runtime's part of the configuration (config/runtime.ts); the outgoing log's sampling is its writer's. */
export interface BuiltinRuntimeSettings extends Omit<RuntimeConfig, 'outgoingLogDeliveredPerSecond'> {
  /** TRUST_PROXY: peers whose X-Forwarded-For names the visitor; unset or false trusts none. */
  trustProxy?: false | string[];
  /** The mmdb city databases of the geo power-up; DB-IP Lite (shipped in an npm package) by default. */
  geoFiles?: GeoFiles;
  /** The User ID power-up's key, derived from the platform's secret so every gateway process makes the same ids. */
  visitorIdKey?: Buffer;
  onError: (error: unknown) => void;
  /** Where forwards that failed for good are logged at each flush, with their reasons and counts. */
  log?: { warn(object: object, message: string): void };
}

/** An event collected for a container, offered to every sink (the Meta Conversions API sender, …). */
export interface CollectedEvent {
  event: RuntimeEvent;
  visitor: Visitor;
  route: GatewayRoute;
}

/** Turns a collected event into forwards for one vendor; none when the container does not use that vendor. */
export type EventSink = (collected: CollectedEvent) => ForwardJob[] | Promise<ForwardJob[]>;

export type { RuntimeAnswer } from './replies.js';

const MAX_COLLECT_BODY_BYTES = 64 * 1024;
const NO_BODY = { text: '', bytes: 0 };
const FAILURES_MESSAGE = 'Forwards failed for good: the vendor refused them or they ran out of attempts';
/** The direct JSON event endpoint on a builtin container's hostnames. */
export const DIRECT_EVENTS_PATH = '/events';
/** GA4's collection path, where gtag.js sends hits. */
export const GA4_COLLECT_PATH = '/g/collect';

/**
 * The built-in container runtime: what a container with `runtime: builtin` does by itself, without a tagging
 * server. It serves Google's tags from the container's hostname on its custom loader path, collects GA4 hits
 * (`/g/collect`) and forwards them to Google (and, through sinks, to other vendors) from a bounded queue.
 */
export class BuiltinRuntime {
  private readonly loader: CustomLoader;
  private readonly forwarding: Forwarding;
  /** GA4 hits go out pipelined over a few connections: the hit path's largest cost after answering the visitor. */
  private readonly ga4: PipelinedSender;
  private readonly meter = new RuntimeMeter();
  private readonly sinks: EventSink[] = [];
  /** Sinks still working out their forwards (an async lookup of the container's pixels, say). */
  private readonly offering = new Set<Promise<void>>();
  readonly powerups: Powerups;

  constructor(
    private readonly dependencies: {
      dispatcher: Dispatcher;
      /** Opens a connection to an origin through the outbound guard (OutboundClient.connect). */
      connect: (origin: URL) => Promise<Socket>;
      traffic: ContainerTraffic;
      outgoing?: OutgoingRecorder;
    },
    private readonly settings: BuiltinRuntimeSettings,
  ) {
    this.powerups = new Powerups(
      trustedProxies(settings.trustProxy ?? false),
      settings.onError,
      settings.geoFiles,
      settings.visitorIdKey,
    );
    this.loader = new CustomLoader(
      new ScriptCache(dependencies.dispatcher, {
        origin: settings.googleTagOrigin,
        timeoutMs: settings.forwardTimeoutMs,
        defaultTtlMs: 15 * 60_000,
        maxEntries: 10_000,
        onError: settings.onError,
      }),
      this.powerups,
      this.meter,
      settings.onError,
    );
    const ga4Origin = new URL(settings.ga4CollectOrigin);
    this.ga4 = new PipelinedSender({
      connections: settings.forwardConnections,
      depth: settings.forwardPipelining,
      timeoutMs: settings.forwardTimeoutMs,
      idleMs: 4_000,
      connect: () => dependencies.connect(ga4Origin),
      host: ga4Origin.host,
    });
    this.forwarding = new Forwarding(this.meter, {
      maxSize: settings.forwardQueueSize,
      concurrency: settings.forwardConcurrency,
      timeoutMs: settings.forwardTimeoutMs,
      maxAttempts: settings.forwardMaxAttempts,
      retryBaseMs: settings.forwardRetryBaseMs,
      drainMs: settings.forwardDrainMs,
      onError: settings.onError,
      outgoing: dependencies.outgoing,
      abandon: () => this.ga4.close(),
    });
  }

  /** Ready to serve: forwarding accepts events. */
  get ready(): boolean {
    return this.forwarding.accepting;
  }

  /** Forwards waiting, in flight or waiting for a retry. */
  get queued(): number {
    return this.forwarding.held;
  }

  addSink(sink: EventSink): void {
    this.sinks.push(sink);
  }

  /** Counts what a power-up did (a bot dropped, a cookie restored) in the container's usage. */
  count(containerId: string, metric: 'botsDropped' | 'cookiesRestored', amount = 1): void {
    this.meter.count(containerId, metric, amount);
  }

  /** Whether the request is for the container's custom loader (served on both runtimes). */
  servesLoader(route: GatewayRoute, url: string): boolean {
    const path = `/${route.settings.loader_path}.js`;
    return url.startsWith(path) && (url.length === path.length || url[path.length] === '?');
  }

  /** Answers a request for a builtin container (or a custom loader); a GET hit is answered without a promise. */
  handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: GatewayRoute,
  ): RuntimeAnswer | Promise<RuntimeAnswer> {
    const url = req.url ?? '/';
    const { path, query } = splitTarget(url);
    const method = req.method ?? 'GET';
    if (this.servesLoader(route, url) && (method === 'GET' || method === 'HEAD'))
      return this.loader.serve(req, res, route, query);
    if (route.runtime === 'builtin' && path === GA4_COLLECT_PATH) {
      if (method === 'OPTIONS') return answer(res, 204, corsHeaders(req));
      if (method === 'GET' || method === 'POST') return this.collect(req, res, route, query);
    }
    if (route.runtime === 'builtin' && path === DIRECT_EVENTS_PATH) {
      if (method === 'OPTIONS') return answer(res, 204, corsHeaders(req));
      if (method === 'POST') return this.direct(req, res, route);
    }
    return errorAnswer(res, 404, 'not_found', 'The container serves nothing at this path.');
  }

  /**
   * A GA4 `GET /g/collect` for a builtin container, as the gateway's hit lane read it (src/gateway/hit-lane.ts), with
   * its query: served as handle() serves it.
   */
  collectGet(req: RequestHead, res: Reply, route: GatewayRoute, query: string): RuntimeAnswer | Promise<RuntimeAnswer> {
    return this.collected(req, res, route, query, NO_BODY);
  }

  /** Writes the counts so far through the traffic service (the gateway's flush calls it), and reports failures. */
  async flush(): Promise<void> {
    const failures = this.forwarding.takeFailures();
    if (failures.length > 0) this.settings.log?.warn({ failures }, FAILURES_MESSAGE);
    const rows = this.meter.take();
    if (rows.length === 0) return;
    try {
      await this.dependencies.traffic.recordRuntime(rows);
    } catch (error) {
      this.meter.restore(rows);
      throw error;
    }
  }

  /** Resolves once every queued forward is delivered or given up (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.offered();
    return this.forwarding.idle();
  }

  /** On the `upstream` and `sgtm` runtimes: the power-ups as request headers for the tagging server. */
  upstreamHeaders(req: http.IncomingMessage, route: GatewayRoute): Promise<string[]> {
    return this.powerups.upstreamHeaders(req, route.settings, route.containerId);
  }

  /** Refuses new hits, lets the held forwards drain (up to `forwardDrainMs`), then stops. */
  async stop(): Promise<void> {
    await this.offered();
    await this.forwarding.stop();
    this.ga4.close();
  }

  private async offered(): Promise<void> {
    while (this.offering.size > 0) await Promise.all(this.offering);
  }

  /**
   * `/g/collect`: answered 204 at once; each event for a GA4 id the container owns is forwarded behind, with the
   * client id kept in the server-set FPID cookie and the visitor's IP and user agent.
   */
  private collect(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: GatewayRoute,
    query: string,
  ): RuntimeAnswer | Promise<RuntimeAnswer> {
    if (req.method !== 'POST') return this.collected(req, res, route, query, NO_BODY);
    return readBody(req, MAX_COLLECT_BODY_BYTES).then((body) =>
      body === null
        ? errorAnswer(res, 413, 'body_too_large', 'A collection request carries at most 64 KiB.')
        : this.collected(req, res, route, query, body),
    );
  }

  private collected(
    req: RequestHead,
    res: Reply,
    route: GatewayRoute,
    query: string,
    body: { text: string; bytes: number },
  ): RuntimeAnswer | Promise<RuntimeAnswer> {
    const hits = parseCollect(query, body.text).filter((hit) =>
      route.settings.ga4_measurement_ids.includes(hit.event.measurementId ?? ''),
    );
    const headers = corsHeaders(req);
    if (hits.length === 0) return answer(res, 204, headers, body.bytes);
    if (!this.forwarding.admits(hits.length)) return this.refuse(res, route, hits.length, headers);
    this.meter.count(route.containerId, 'hitsReceived', hits.length);
    const visit = this.powerups.visit(req, route.settings, hits[0].event.pageUrl);
    if (visit instanceof Promise)
      return visit.then((visited) => this.acknowledge(res, route, hits, visited, headers, body.bytes));
    return this.acknowledge(res, route, hits, visit, headers, body.bytes);
  }

  /** Answers the hits' request 204 (with the visitor's cookies), then forwards each hit behind. */
  private acknowledge(
    res: Reply,
    route: GatewayRoute,
    hits: Ga4Hit[],
    visit: Visit,
    headers: http.OutgoingHttpHeaders,
    requestBytes: number,
  ): RuntimeAnswer {
    if (visit.dropped) {
      this.meter.count(route.containerId, 'botsDropped', hits.length);
      return answer(res, 204, headers, requestBytes);
    }
    if (visit.restored) this.meter.count(route.containerId, 'cookiesRestored', visit.restored);
    const visitor = visit.visitor;
    const clientId = stableClientId(visitor, hits[0].event.clientId);
    const setCookies = [...fpidSetCookies(visitor, clientId), ...visit.setCookies];
    if (setCookies.length) headers['set-cookie'] = setCookies;
    const answered = answer(res, 204, headers, requestBytes);
    const marks = powerupEventParams(visitor, route.settings);
    for (const hit of hits) {
      const event = hit.event.clientId === clientId ? hit.event : { ...hit.event, clientId };
      const ga4 = anonymize(event, visitor, route.settings.anonymizer.ga4);
      const params = anonymizeGa4Params(
        forwardedHit(hit, ga4.visitor, clientId, ga4.event),
        route.settings.anonymizer.ga4,
      );
      setGa4EventParams(params, marks);
      const outgoing = ga4Outgoing(ga4.event, ga4.visitor);
      this.forward(new Ga4Forward(route.containerId, this.ga4, params, ga4.visitor.userAgent, outgoing));
      this.offer({ event, visitor, route });
    }
    return answered;
  }

  /**
   * `POST /events`: one event in JSON (DirectEventBody), for the vendors' sinks (the Meta Conversions API). Answered
   * 202 once valid, before it is forwarded; 400 with the problems otherwise.
   */
  private async direct(req: http.IncomingMessage, res: http.ServerResponse, route: GatewayRoute) {
    const body = await readBody(req, MAX_COLLECT_BODY_BYTES);
    if (body === null) return errorAnswer(res, 413, 'body_too_large', 'An event carries at most 64 KiB.');
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch {
      return errorAnswer(res, 400, 'invalid_json', 'The body must be a JSON object.', undefined, corsHeaders(req));
    }
    const parsed = parseDirectEvent(json, Date.now());
    if (!parsed.ok)
      return errorAnswer(res, 400, 'invalid_event', 'The event is not valid.', parsed.errors, corsHeaders(req));
    if (!this.forwarding.admits(1)) return this.refuse(res, route, 1, corsHeaders(req));
    this.meter.count(route.containerId, 'hitsReceived');
    const visit = await this.powerups.visit(req, route.settings, parsed.event.pageUrl);
    const headers = corsHeaders(req);
    if (visit.dropped) {
      this.meter.count(route.containerId, 'botsDropped');
      return answer(res, 202, headers, body.bytes);
    }
    if (visit.restored) this.meter.count(route.containerId, 'cookiesRestored', visit.restored);
    if (visit.setCookies.length) headers['set-cookie'] = visit.setCookies;
    const answered = answer(res, 202, headers, body.bytes);
    this.offer({ event: parsed.event, visitor: visit.visitor, route });
    return answered;
  }

  /** Gives a collected event to every sink and queues the forwards they make of it. */
  private offer(collected: CollectedEvent): void {
    for (const sink of this.sinks) {
      let made: ForwardJob[] | Promise<ForwardJob[]>;
      try {
        made = sink(collected);
        // A sink that knows its answer at once (the usual case once its lookups are cached) costs no promise.
        if (!(made instanceof Promise)) {
          for (const job of made) this.forward(job);
          continue;
        }
      } catch (error) {
        this.settings.onError(error);
        continue;
      }
      const offered = made
        .then((jobs) => {
          for (const job of jobs) this.forward(job);
        })
        .catch(this.settings.onError);
      this.offering.add(offered);
      void offered.finally(() => this.offering.delete(offered));
    }
  }

  private forward(job: ForwardJob): void {
    this.forwarding.forward(job);
  }

  /** No room to hold more forwards: 503, so the hit is not acknowledged and a sender that retries keeps it. */
  private refuse(res: Reply, route: GatewayRoute, hits: number, headers: http.OutgoingHttpHeaders) {
    this.meter.count(route.containerId, 'hitsRefused', hits);
    return errorAnswer(
      res,
      503,
      'forwarding_backlog',
      'This container is forwarding a backlog to its vendors; send the hit again shortly.',
      undefined,
      { ...headers, 'retry-after': '1' },
    );
  }
}
