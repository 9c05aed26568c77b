import type http from 'node:http';

/**
 * The gateway's own error body, `{error: {code, message}}` (+ `api_meta.request_id` and `X-Request-Id` when the
 * answer has an id to quote), for everything the gateway answers itself. Returns the body's length in bytes.
 */
export function writeGatewayError(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  requestId?: string,
): number {
  const body = JSON.stringify({
    error: { code, message },
    ...(requestId ? { api_meta: { request_id: requestId } } : {}),
  });
  const headers: http.OutgoingHttpHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (requestId) headers['x-request-id'] = requestId;
  res.writeHead(status, headers).end(body);
  return headers['content-length'] as number;
}
