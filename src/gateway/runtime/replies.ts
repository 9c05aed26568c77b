/** The built-in runtime's answers to visitors: CORS, empty acknowledgements, errors in the gateway's format. */
import type http from 'node:http';
import { type Reply, writeGatewayError } from '../answers.js';
import { readBodyUpTo } from '../body.js';
import type { RequestHead } from '../http1/request-head.js';

/** How the runtime answered a request: what the gateway meters and logs. */
export interface RuntimeAnswer {
  status: number;
  requestBytes: number;
  responseBytes: number;
}

/** `public, max-age=900` → `private, max-age=900`: for a browser's cache only. */
export function privateCacheControl(cacheControl: string): string {
  if (/\bprivate\b|\bno-store\b/.test(cacheControl)) return cacheControl;
  const rest = cacheControl.replace(/\bpublic\b,?\s*/, '').trim();
  return rest ? `private, ${rest}` : 'private';
}

/** CORS for hits sent with `fetch(…, {credentials: 'include'})` from the shop's pages. */
export function corsHeaders(req: RequestHead): http.OutgoingHttpHeaders {
  const origin = req.headers.origin;
  if (!origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'content-type',
    vary: 'origin',
  };
}

export function answer(res: Reply, status: number, headers: http.OutgoingHttpHeaders, requestBytes = 0): RuntimeAnswer {
  res.writeHead(status, { 'cache-control': 'no-store', ...headers }).end();
  return { status, requestBytes, responseBytes: 0 };
}

/** The gateway's error body, metered as the runtime's answer. */
export function errorAnswer(
  res: Reply,
  status: number,
  code: string,
  message: string,
  details?: string[],
  headers: http.OutgoingHttpHeaders = {},
): RuntimeAnswer {
  return {
    status,
    requestBytes: 0,
    responseBytes: writeGatewayError(res, status, code, message, { details, headers }),
  };
}

/** The request body as text, or null when it is larger than `limit` bytes. */
export async function readBody(
  req: http.IncomingMessage,
  limit: number,
): Promise<{ text: string; bytes: number } | null> {
  const body = await readBodyUpTo(req, limit);
  return body && { text: body.toString('utf8'), bytes: body.length };
}
