import type http from 'node:http';
import type { Dispatcher } from 'undici';
import { newId } from '../lib/ids.js';
import type { GatewayRoute } from '../modules/containers/traffic.js';
import { writeGatewayError } from './answers.js';
import { type CachedFile, FileCache } from './file-cache.js';
import { splitTarget } from './http1/request-head.js';

type ProxiedFile = GatewayRoute['settings']['file_proxy']['files'][number];

/** The file the File Proxy power-up serves at the request's path (its query aside), or null. */
export function proxiedFileAt(route: GatewayRoute, requestTarget: string): ProxiedFile | null {
  const { enabled, files } = route.settings.file_proxy;
  if (!enabled || files.length === 0) return null;
  const { path } = splitTarget(requestTarget);
  return files.find((file) => file.path === path) ?? null;
}

/**
 * File Proxy: a vendor's file served from the container's own hostname, whatever the container's runtime (it comes
 * before the runtime's own handling of the path), from the cache (src/gateway/file-cache.ts) with the vendor's
 * type, validators for conditional requests and `Cache-Control: public, max-age=<cache_seconds>`.
 */
export class FileProxy {
  private readonly cache: FileCache;

  constructor(
    dispatcher: Dispatcher,
    private readonly settings: { timeoutMs: number; onError: (error: unknown) => void },
  ) {
    this.cache = new FileCache(dispatcher, { timeoutMs: settings.timeoutMs });
  }

  /** Answers the request with the file; returns the status and the bytes written, for metering. */
  async serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: GatewayRoute,
    proxied: ProxiedFile,
  ): Promise<{ status: number; responseBytes: number }> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      const message = `${proxied.path} is a proxied file: only GET and HEAD are allowed.`;
      const headers = { allow: 'GET, HEAD' };
      return { status: 405, responseBytes: writeGatewayError(res, 405, 'method_not_allowed', message, { headers }) };
    }
    let file: CachedFile;
    try {
      file = await this.cache.get(proxied.url, proxied.cache_seconds);
    } catch (error) {
      return { status: 502, responseBytes: this.unavailable(res, route, proxied, error) };
    }
    const headers = {
      'content-type': file.contentType,
      etag: file.etag,
      'last-modified': file.lastModified,
      'cache-control': `public, max-age=${proxied.cache_seconds}`,
    };
    if (notModified(req, file)) {
      res.writeHead(304, headers).end();
      return { status: 304, responseBytes: 0 };
    }
    res.writeHead(200, { ...headers, 'content-length': file.body.length });
    const body = method === 'HEAD' ? undefined : file.body;
    res.end(body);
    return { status: 200, responseBytes: body?.length ?? 0 };
  }

  /** The client learns only that the file is unavailable; the cause (refused address, vendor status) goes to our log. */
  private unavailable(res: http.ServerResponse, route: GatewayRoute, proxied: ProxiedFile, cause: unknown): number {
    const requestId = newId('request');
    this.settings.onError(
      new Error(
        `Gateway request ${requestId}: the file proxied at ${proxied.path} by container ${route.containerId} could not be fetched: ${(cause as Error)?.message ?? cause}`,
        { cause },
      ),
    );
    return writeGatewayError(
      res,
      502,
      'file_unavailable',
      `The file at ${proxied.path} could not be fetched from its source. Quote the request id if you contact us.`,
      { requestId },
    );
  }
}

/** If-None-Match (weak comparison, `*`), else If-Modified-Since, as RFC 9110 orders them. */
function notModified(req: http.IncomingMessage, file: CachedFile): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return noneMatch.trim() === '*' || noneMatch.split(',').some((tag) => opaque(tag) === opaque(file.etag));
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  const modified = Date.parse(file.lastModified);
  return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since;
}
