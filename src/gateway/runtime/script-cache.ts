import { type Dispatcher, request } from 'undici';

/**
 * Google's tag scripts (gtm.js, gtag/js) as the custom loader serves them, fetched from the configured origin
 * and kept in memory. Freshness follows the origin's `Cache-Control` (`max-age`, `no-cache`/`no-store`); a
 * stale copy is revalidated with `If-None-Match`/`If-Modified-Since` and, while that runs, served as it is
 * (stale-while-revalidate). Only one fetch per script is ever in flight: concurrent visitors share it.
 */

export interface Script {
  status: number;
  body: Buffer;
  contentType: string;
  /** The Cache-Control our answer carries (the origin's, so browsers cache as Google intends). */
  cacheControl: string;
  etag: string | null;
  lastModified: string | null;
}

interface Entry {
  script: Script;
  /** When the copy stops being fresh (ms since the epoch). */
  freshUntil: number;
  revalidating: Promise<Script> | null;
}

export interface ScriptCacheSettings {
  origin: string;
  timeoutMs: number;
  /** How long a copy without any max-age stays fresh. */
  defaultTtlMs: number;
  maxEntries: number;
  onError: (error: unknown) => void;
}

/** Answers that are kept and served from the cache; anything else is passed on once and not kept. */
const CACHEABLE = new Set([200, 404]);
const MAX_SCRIPT_BYTES = 5 * 1024 * 1024;

export class ScriptCache {
  private readonly entries = new Map<string, Entry>();
  private readonly firstFetches = new Map<string, Promise<Script>>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly settings: ScriptCacheSettings,
  ) {}

  /** The script at `path` (e.g. `/gtm.js?id=GTM-ABC123`) on the origin. */
  async get(path: string): Promise<Script> {
    const entry = this.entries.get(path);
    if (!entry) return this.fetchFirst(path);
    if (Date.now() >= entry.freshUntil && !entry.revalidating) {
      entry.revalidating = this.revalidate(path, entry).finally(() => {
        entry.revalidating = null;
      });
      entry.revalidating.catch(this.settings.onError);
    }
    return entry.script;
  }

  clear(): void {
    this.entries.clear();
  }

  private fetchFirst(path: string): Promise<Script> {
    let pending = this.firstFetches.get(path);
    if (!pending) {
      pending = this.fetch(path, null).finally(() => this.firstFetches.delete(path));
      this.firstFetches.set(path, pending);
    }
    return pending;
  }

  /** A conditional request; on 304 the copy is fresh again, on an error it stays (stale) until the next try. */
  private async revalidate(path: string, entry: Entry): Promise<Script> {
    try {
      return await this.fetch(path, entry);
    } catch (error) {
      entry.freshUntil = Date.now() + Math.min(this.settings.defaultTtlMs, 60_000);
      throw error;
    }
  }

  private async fetch(path: string, stale: Entry | null): Promise<Script> {
    const headers: Record<string, string> = { 'user-agent': 'Tagport-Gateway/1.0 (custom loader)' };
    if (stale?.script.etag) headers['if-none-match'] = stale.script.etag;
    if (stale?.script.lastModified) headers['if-modified-since'] = stale.script.lastModified;
    const response = await request(`${this.settings.origin}${path}`, {
      method: 'GET',
      headers,
      dispatcher: this.dispatcher,
      headersTimeout: this.settings.timeoutMs,
      bodyTimeout: this.settings.timeoutMs,
      signal: AbortSignal.timeout(this.settings.timeoutMs),
    });
    const cacheControl = header(response.headers['cache-control']) ?? '';
    if (response.statusCode === 304 && stale) {
      await response.body.dump();
      stale.freshUntil = Date.now() + this.ttl(cacheControl || stale.script.cacheControl);
      if (cacheControl) stale.script.cacheControl = cacheControl;
      return stale.script;
    }
    const body = Buffer.from(await response.body.arrayBuffer());
    if (body.length > MAX_SCRIPT_BYTES) throw new Error(`The script at ${path} is larger than expected.`);
    const script: Script = {
      status: response.statusCode,
      body,
      contentType: header(response.headers['content-type']) ?? 'application/javascript; charset=utf-8',
      cacheControl: cacheControl || 'private, max-age=900',
      etag: header(response.headers.etag),
      lastModified: header(response.headers['last-modified']),
    };
    if (!CACHEABLE.has(script.status)) {
      if (stale) return stale.script;
      return script;
    }
    if (!this.entries.has(path) && this.entries.size >= this.settings.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(path, { script, freshUntil: Date.now() + this.ttl(cacheControl), revalidating: null });
    return script;
  }

  /** How long an answer with this Cache-Control stays fresh here. */
  private ttl(cacheControl: string): number {
    if (/(^|,)\s*(no-cache|no-store)\b/i.test(cacheControl)) return 0;
    const maxAge = /(?:^|,)\s*(?:s-maxage|max-age)=(\d+)/i.exec(cacheControl);
    return maxAge ? Number(maxAge[1]) * 1000 : this.settings.defaultTtlMs;
  }
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
