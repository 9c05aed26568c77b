import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A hit that reached the fixture's collection endpoint. */
export interface CollectedHit {
  method: string;
  params: URLSearchParams;
  userAgent: string;
  body: string;
}

/** A tag script request that reached the fixture, with the conditional headers it carried. */
export interface ScriptRequest {
  path: string;
  ifNoneMatch: string | null;
}

/**
 * A stand-in for Google on loopback: `/gtm.js` and `/gtag/js` answer `script(id)` with the given Cache-Control
 * and an ETag (304 on a matching If-None-Match), and `/g/collect` records hits and answers `collectStatus()`.
 */
export async function startGoogleFixture(
  options: { script?: (kind: 'gtm' | 'gtag', id: string) => string; cacheControl?: string; delayMs?: number } = {},
) {
  const hits: CollectedHit[] = [];
  const scripts: ScriptRequest[] = [];
  const state = {
    etag: '"v1"',
    collectStatuses: [] as number[],
    cacheControl: options.cacheControl ?? 'private, max-age=900',
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture.test');
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (url.pathname === '/g/collect') {
        hits.push({
          method: req.method ?? 'GET',
          params: url.searchParams,
          userAgent: req.headers['user-agent'] ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
        return void res.writeHead(state.collectStatuses.shift() ?? 204).end();
      }
      const kind = url.pathname === '/gtm.js' ? 'gtm' : url.pathname === '/gtag/js' ? 'gtag' : null;
      if (!kind) return void res.writeHead(404).end();
      scripts.push({
        path: `${url.pathname}${url.search}`,
        ifNoneMatch: (req.headers['if-none-match'] as string) ?? null,
      });
      const respond = () => {
        if (req.headers['if-none-match'] === state.etag)
          return void res.writeHead(304, { etag: state.etag, 'cache-control': state.cacheControl }).end();
        const id = url.searchParams.get('id') ?? '';
        res
          .writeHead(200, {
            'content-type': 'application/javascript; charset=UTF-8',
            'cache-control': state.cacheControl,
            etag: state.etag,
          })
          .end(options.script?.(kind, id) ?? `/* ${kind} ${id} ${state.etag} */`);
      };
      if (options.delayMs) setTimeout(respond, options.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    scripts,
    state,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export type GoogleFixture = Awaited<ReturnType<typeof startGoogleFixture>>;

/** Resolves once `condition()` holds, polling; fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for the condition.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
