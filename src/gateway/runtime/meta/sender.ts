import type { OutboundResponse } from '../../../lib/outbound.js';
import type { MetaServerEvent } from './events.js';

/** A pixel's credentials as the sender needs them (the token already opened by MetaPixelService). */
export interface MetaPixelTarget {
  pixelId: string;
  accessToken: string;
  /** Sent as `test_event_code`, so the events show in Events Manager's Test events tab. */
  testEventCode: string | null;
}

/** A Graph API error body's fields, as Meta sent them (`{"error": {...}}`). */
export interface GraphError {
  message: string;
  type: string | null;
  code: number | null;
  error_subcode: number | null;
  fbtrace_id: string | null;
}

/** What became of one request to `/{pixel_id}/events`; the forward queue retries `retry` and stops on the others. */
export type MetaSendResult =
  | { verdict: 'delivered'; httpStatus: number; eventsReceived: number | null; fbtraceId: string | null }
  | { verdict: 'retry'; httpStatus: number | null; error: GraphError }
  | { verdict: 'rejected'; httpStatus: number; error: GraphError };

/** The HTTP client the sender posts with: the SSRF-guarded OutboundClient in the service, any in tests. */
export interface HttpPoster {
  send(
    url: URL,
    init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
  ): Promise<OutboundResponse>;
}

export interface MetaSenderSettings {
  /** META_GRAPH_ORIGIN, e.g. `https://graph.facebook.com`. */
  graphOrigin: string;
  /** META_GRAPH_VERSION, e.g. `v26.0`. */
  graphVersion: string;
  timeoutMs: number;
}

/** Graph takes at most 1000 events in one request. */
export const MAX_EVENTS_PER_REQUEST = 1000;

// Graph error codes Meta documents as temporary: unknown error, service unavailable, and the rate limits.
const TRANSIENT_GRAPH_CODES = new Set([1, 2, 4, 17, 32, 341, 613]);

function graphErrorOf(body: string, httpStatus: number | null): GraphError {
  let error: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null)
      error = parsed.error as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML page, say): described by the status alone.
  }
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const integer = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : null);
  return {
    message: text(error?.message) ?? `Graph API answered HTTP ${httpStatus ?? 'nothing'}`,
    type: text(error?.type),
    code: integer(error?.code),
    error_subcode: integer(error?.error_subcode),
    fbtrace_id: text(error?.fbtrace_id),
  };
}

function isTransient(body: string, error: GraphError): boolean {
  if (error.code !== null && TRANSIENT_GRAPH_CODES.has(error.code)) return true;
  try {
    return (JSON.parse(body) as { error?: { is_transient?: unknown } }).error?.is_transient === true;
  } catch {
    return false;
  }
}

/** Sorts a Graph answer: 2xx delivered; 5xx, 429 and errors Meta marks transient retry; other 4xx rejected. */
export function classifyGraphResponse(response: Pick<OutboundResponse, 'statusCode' | 'body'>): MetaSendResult {
  const { statusCode: httpStatus, body } = response;
  if (httpStatus >= 200 && httpStatus < 300) {
    let parsed: { events_received?: unknown; fbtrace_id?: unknown } = {};
    try {
      parsed = JSON.parse(body) ?? {};
    } catch {
      // Delivered all the same: Graph took the events.
    }
    return {
      verdict: 'delivered',
      httpStatus,
      eventsReceived: typeof parsed.events_received === 'number' ? parsed.events_received : null,
      fbtraceId: typeof parsed.fbtrace_id === 'string' ? parsed.fbtrace_id : null,
    };
  }
  const error = graphErrorOf(body, httpStatus);
  if (httpStatus >= 500 || httpStatus === 429 || httpStatus === 408 || isTransient(body, error))
    return { verdict: 'retry', httpStatus, error };
  return { verdict: 'rejected', httpStatus, error };
}

/**
 * Conversions API sender: posts server events to `{origin}/{version}/{pixel_id}/events` with the access token in
 * the JSON body (never in the URL, which proxies log), and sorts the answer for the forward queue.
 */
export class MetaConversionsSender {
  private readonly http: HttpPoster;

  constructor(
    { http }: { http: HttpPoster },
    private readonly settings: MetaSenderSettings,
  ) {
    this.http = http;
  }

  eventsUrl(pixelId: string): URL {
    return new URL(`${this.settings.graphOrigin}/${this.settings.graphVersion}/${encodeURIComponent(pixelId)}/events`);
  }

  /** One request with up to 1000 events (Graph's limit per request); a network failure or timeout is `retry`. */
  async send(target: MetaPixelTarget, events: MetaServerEvent[]): Promise<MetaSendResult> {
    if (events.length === 0 || events.length > MAX_EVENTS_PER_REQUEST)
      throw new RangeError(`Send 1 to ${MAX_EVENTS_PER_REQUEST} events per request, not ${events.length}`);
    const body = JSON.stringify({
      data: events,
      access_token: target.accessToken,
      ...(target.testEventCode ? { test_event_code: target.testEventCode } : {}),
    });
    try {
      const response = await this.http.send(this.eventsUrl(target.pixelId), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        timeoutMs: this.settings.timeoutMs,
      });
      return classifyGraphResponse(response);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const reason = typeof code === 'string' ? code : (error as Error).name || 'network error';
      return {
        verdict: 'retry',
        httpStatus: null,
        error: {
          message: `Could not reach the Graph API (${reason})`,
          type: null,
          code: null,
          error_subcode: null,
          fbtrace_id: null,
        },
      };
    }
  }
}
