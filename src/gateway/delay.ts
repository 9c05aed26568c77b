import type http from 'node:http';
import { checkPlatformRequest, peerAddress } from './client.js';
import { writeGatewayError } from './answers.js';
import { NOT_FORWARDED_UPSTREAM } from './upstream.js';
import { readBodyUpTo } from './body.js';
import type { Outcome } from './relay.js';
import { GATEWAY_ANSWER } from './relay.js';
import type { RequestHead } from './http1/request-head.js';

/** Request Delay: `/stape/delay/<minutes>/<path>` or `/delay/<minutes>/<path>`, held and sent to `/<path>` later. */
const DELAY_PATH = /^\/(?:stape\/)?delay(?:$|[/?])/;
const DELAY_PARTS = /^\/(?:stape\/)?delay(?:\/([^/?]*))?(?:\/([^?]*))?(\?.*)?$/;
export const MAX_DELAY_MINUTES = 1500;
export const MAX_DELAYED_BODY_BYTES = 64 * 1024;
/** Seconds a client is told to wait when the request could not be stored. */
const RETRY_AFTER_SECONDS = 30;

/**
 * Headers not stored for the replay: those never forwarded upstream (hop-by-hop, body framing, what the gateway
 * sets: forwarding, power-ups; one list with the proxy's, so neither drifts), those that would change how the replay is read (`expect`, conditional and range requests), and our own `x-tagport-*`.
 * Cookies and authorization are kept: the tagging server reads them as it would have at once.
 */
const NOT_REPLAYED = new Set([
  ...NOT_FORWARDED_UPSTREAM,
  'expect',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
  'range',
]);

/** A request to hold, as the gateway received it. */
export interface HeldRequest {
  containerId: string;
  method: string;
  /** What is requested when due: `/<path>`, query included. */
  path: string;
  /** [name, value, …], names lowercase. */
  headers: string[];
  body: Buffer;
  minutes: number;
}

/** Where held requests are stored (modules/request-powerups): `full` when the container has too many waiting. */
export interface DelayedRequestSink {
  hold(request: HeldRequest): Promise<{ id: string; dueAt: Date } | 'full'>;
}

/** Whether the request is one for Request Delay on a container that has it on. */
export function isDelayRequest(settings: { request_delay: { enabled: boolean } }, url: string): boolean {
  return settings.request_delay.enabled && DELAY_PATH.test(url);
}

/** The delay and the path to send to, or what is wrong with the request target. */
export function parseDelayTarget(url: string): { minutes: number; path: string } | { problem: string } {
  const parts = DELAY_PARTS.exec(url);
  if (!parts) return { problem: 'The request target must be /delay/<minutes>/<path>.' };
  const [, minutesText = '', rest = '', query = ''] = parts;
  const minutes = /^\d{1,4}$/.test(minutesText) ? Number(minutesText) : Number.NaN;
  if (!(minutes >= 1 && minutes <= MAX_DELAY_MINUTES))
    return {
      problem: `The delay must be a whole number of minutes from 1 to ${MAX_DELAY_MINUTES}, as in /delay/10/<path>; got '${minutesText.slice(0, 20)}'.`,
    };
  return { minutes, path: `/${rest}${query}` };
}

/** The headers kept for the replay, the client's address appended to X-Forwarded-For as the gateway would forward it. */
export function replayedHeaders(req: http.IncomingMessage): string[] {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let forwardedFor = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith(':') || name.startsWith('x-tagport-')) continue;
    if (name === 'x-forwarded-for') forwardedFor += `${raw[i + 1]}, `;
    else if (!NOT_REPLAYED.has(name)) headers.push(name, raw[i + 1]);
  }
  headers.push('x-forwarded-for', forwardedFor + peerAddress(req));
  return headers;
}

/** Answers a Request Delay request: 202 once stored; 400, 413, 429 or 503 (stored nothing) in the gateway's format. */
export async function holdRequest(
  sink: DelayedRequestSink,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  containerId: string,
  onError: (error: unknown) => void,
): Promise<Outcome> {
  const refused = (status: number, code: string, message: string, headers = {}) => ({
    ...GATEWAY_ANSWER,
    status,
    responseBytes: writeGatewayError(res, status, code, message, { headers }),
  });
  const target = parseDelayTarget(req.url ?? '/');
  if ('problem' in target) return refused(400, 'invalid_delay', target.problem);
  const body = await readBodyUpTo(req, MAX_DELAYED_BODY_BYTES);
  if (body === null) return refused(413, 'body_too_large', 'A delayed request carries at most 64 KiB.');
  const request = { containerId, method: req.method ?? 'GET', headers: replayedHeaders(req), body, ...target };
  let held: Awaited<ReturnType<DelayedRequestSink['hold']>>;
  try {
    held = await sink.hold(request);
  } catch (error) {
    onError(error);
    return refused(503, 'delay_unavailable', 'The request could not be stored; it was not accepted. Retry later.', {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }
  if (held === 'full')
    return refused(429, 'too_many_delayed_requests', 'The container holds as many delayed requests as it may.', {
      'retry-after': '60',
    });
  const answer = JSON.stringify({ id: held.id, due_at: held.dueAt.toISOString() });
  res.writeHead(202, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(answer);
  return { ...GATEWAY_ANSWER, status: 202, requestBytes: body.length, responseBytes: Buffer.byteLength(answer) };
}

/**
 * Requests the platform sends itself (delayed and scheduled ones, carrying its token) reach the plain port: never
 * redirected to https. A visitor sending X-Tagport-Delayed-By without the token is redirected like any other.
 */
export function sentByPlatform(req: RequestHead, token: string): boolean {
  return checkPlatformRequest(req, token);
}
