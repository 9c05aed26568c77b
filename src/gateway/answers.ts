import type http from 'node:http';

/** Where the gateway writes an answer it makes itself: Node's `ServerResponse`, or the hit lane's (http1/lane-reply.ts). */
export interface Reply {
  writeHead(status: number, headers: http.OutgoingHttpHeaders): { end(body?: string): unknown };
}

export interface GatewayErrorExtras {
  /** An id the client can quote: sent as `api_meta.request_id` and `X-Request-Id`. */
  requestId?: string;
  /** Machine-readable detail, e.g. each problem of a refused event body. */
  details?: unknown;
  headers?: http.OutgoingHttpHeaders;
}

/**
 * The gateway's own error body, `{error: {code, message, details?}, api_meta?}`, for everything the gateway answers
 * itself. Returns the body's length in bytes (metering counts it).
 */
export function writeGatewayError(
  res: Reply,
  status: number,
  code: string,
  message: string,
  { requestId, details, headers = {} }: GatewayErrorExtras = {},
): number {
  const body = JSON.stringify({
    error: { code, message, ...(details === undefined ? {} : { details }) },
    ...(requestId ? { api_meta: { request_id: requestId } } : {}),
  });
  const length = Buffer.byteLength(body);
  const answer: http.OutgoingHttpHeaders = {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': length,
  };
  if (requestId) answer['x-request-id'] = requestId;
  res.writeHead(status, answer).end(body);
  return length;
}
