import type http from 'node:http';

/** How much of a body over its limit is still read and dropped before the connection is given up. */
const DRAINED_AT_MOST = 1024 * 1024;

/**
 * A request's body, or null when it is larger than `limit`. A body declared larger (Content-Length) is not read; one
 * that turns out larger is read on and dropped (up to a megabyte more), so that the client, still sending, gets the
 * gateway's 413 instead of a reset connection.
 */
export async function readBodyUpTo(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
    else if (size > limit + DRAINED_AT_MOST) break;
  }
  return size > limit ? null : Buffer.concat(chunks);
}
