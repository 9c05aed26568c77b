import { createHash } from 'node:crypto';
import { type Dispatcher, request } from 'undici';

/** The largest file kept (and served): a tag library is tens of kilobytes. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** All files kept together, across containers; the least recently served go first. */
export const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** How long past its expiry a copy may still be served while its vendor fails (stale-if-error). */
const STALE_IF_ERROR_MS = 24 * 3_600_000;
/** After a failed fetch, the stale copy is served without asking the vendor again for this long. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/** A vendor's file as the gateway serves it. */
export interface CachedFile {
  body: Buffer;
  contentType: string;
  /** The vendor's ETag, or one made from the body. */
  etag: string;
  /** The vendor's Last-Modified, or when it was fetched. */
  lastModified: string;
}

interface Entry {
  file: CachedFile;
  /** The vendor's own validators, for revalidating a copy that expired. */
  vendorEtag: string | null;
  vendorLastModified: string | null;
  expiresAt: number;
  /** Until when, after a failed fetch, the stale copy is served without a new try. */
  retryAt: number;
}

/** The vendor could not give the file (refused address, error status, too large, timeout…). */
export class FileFetchError extends Error {}

/**
 * Files of the File Proxy power-up, fetched through the gateway's outbound dispatcher (the SSRF guard: a URL
 * resolving to a private address is never connected to) and kept in memory, keyed by URL and lifetime. Concurrent
 * misses share one fetch; an expired copy is revalidated with the vendor's validators, and served stale for up
 * to a day when the vendor fails.
 */
export class FileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fetches = new Map<string, Promise<Entry>>();
  private bytes = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly settings: { timeoutMs: number },
  ) {}

  /** The file at `url`, from the cache while it is fresh; throws FileFetchError when there is no usable copy. */
  async get(url: string, cacheSeconds: number): Promise<CachedFile> {
    const key = `${cacheSeconds} ${url}`;
    const entry = this.entries.get(key);
    const now = Date.now();
    if (entry) this.touch(key, entry);
    if (entry && (now < entry.expiresAt || now < entry.retryAt)) return entry.file;
    try {
      return (await this.fetchOnce(key, url, cacheSeconds, entry ?? null)).file;
    } catch (error) {
      if (!entry || now - entry.expiresAt > STALE_IF_ERROR_MS) throw error;
      entry.retryAt = now + RETRY_AFTER_FAILURE_MS;
      return entry.file;
    }
  }

  private fetchOnce(key: string, url: string, cacheSeconds: number, stale: Entry | null): Promise<Entry> {
    let pending = this.fetches.get(key);
    if (!pending) {
      pending = this.fetch(url, cacheSeconds, stale)
        .then((entry) => this.keep(key, entry))
        .finally(() => this.fetches.delete(key));
      this.fetches.set(key, pending);
    }
    return pending;
  }

  private async fetch(url: string, cacheSeconds: number, stale: Entry | null): Promise<Entry> {
    const headers: Record<string, string> = { 'user-agent': 'Tagport-Gateway/1.0 (file proxy)' };
    if (stale?.vendorEtag) headers['if-none-match'] = stale.vendorEtag;
    if (stale?.vendorLastModified) headers['if-modified-since'] = stale.vendorLastModified;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'GET',
        headers,
        dispatcher: this.dispatcher,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      throw new FileFetchError(`${url} could not be fetched: ${(error as Error).message}`, { cause: error });
    }
    const expiresAt = Date.now() + cacheSeconds * 1000;
    if (response.statusCode === 304 && stale) {
      await response.body.dump();
      return { ...stale, expiresAt, retryAt: 0 };
    }
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new FileFetchError(`${url} answered ${response.statusCode}.`);
    }
    const body = await readLimited(response, url);
    const vendorEtag = header(response.headers.etag);
    const vendorLastModified = header(response.headers['last-modified']);
    const file: CachedFile = {
      body,
      contentType: header(response.headers['content-type']) ?? 'application/octet-stream',
      etag: vendorEtag ?? `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      lastModified: vendorLastModified ?? new Date().toUTCString(),
    };
    return { file, vendorEtag, vendorLastModified, expiresAt, retryAt: 0 };
  }

  /** Stores a fetched copy, dropping the least recently served ones while all would pass MAX_CACHED_BYTES. */
  private keep(key: string, entry: Entry): Entry {
    this.drop(key);
    for (const [oldest] of this.entries) {
      if (this.bytes + entry.file.body.length <= MAX_CACHED_BYTES) break;
      this.drop(oldest);
    }
    this.entries.set(key, entry);
    this.bytes += entry.file.body.length;
    return entry;
  }

  private drop(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.file.body.length;
  }

  /** Marks the entry as the most recently served (the Map keeps insertion order). */
  private touch(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }
}

async function readLimited(response: Dispatcher.ResponseData, url: string): Promise<Buffer> {
  const tooLarge = () => new FileFetchError(`${url} is larger than ${MAX_FILE_BYTES} bytes.`);
  if (Number(response.headers['content-length'] ?? 0) > MAX_FILE_BYTES) {
    response.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_FILE_BYTES) {
      response.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
