import type { LookupFunction } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { ScanTargetRefusedError } from './errors.js';
import { bareHost, type SsrfGuard } from './ssrf.js';

/** Stage 1: fetch the page over HTTP(S) with undici, following redirects by hand. */

export interface FetchOptions {
  guard: SsrfGuard;
  maxPageBytes: number;
  maxRedirects: number;
  /** Overall time limit of the stage. */
  timeoutMs: number;
  /** Time limit for the response headers of one hop, and between body chunks. */
  hopTimeoutMs: number;
  extraCaCertificates?: string[];
  userAgent: string;
  acceptLanguage: string;
  signal?: AbortSignal;
}

export interface FetchOutcome {
  /** The URL of the last response. */
  finalUrl: string;
  redirects: string[];
  status: number | null;
  contentType: string | null;
  html: string | null;
  /** The body was cut at maxPageBytes or by a timeout. */
  truncated: 'size' | 'timeout' | null;
  bytes: number;
  /** Set when the stage failed or stopped early; the fields above hold what was obtained. */
  error: { code: string; message: string } | null;
  timedOut: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A lookup that never resolves by itself: it hands the connection the addresses the guard already checked
 * for this scan, so the address connected to is the address that was validated (no DNS rebinding window).
 */
function pinnedLookup(guard: SsrfGuard): LookupFunction {
  return (hostname, options, callback) => {
    const pending = guard.pinned(bareHost(hostname)) ?? guard.checkHost(bareHost(hostname));
    pending.then(
      (resolved) => {
        const entries = resolved.addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        const wanted =
          options.family === 4 || options.family === 6
            ? entries.filter((entry) => entry.family === options.family)
            : entries;
        if (wanted.length === 0) {
          callback(
            Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            4,
          );
        } else if (options.all) {
          // Cast: LookupFunction's callback type is the single-address form; with `all` Node expects the array form.
          (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(
            null,
            wanted,
          );
        } else {
          callback(null, wanted[0].address, wanted[0].family);
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

function errorInfo(error: unknown): { code: string; message: string } {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.cause?.code ?? err?.code ?? 'fetch_failed';
  const message = err?.cause?.message ?? err?.message ?? String(error);
  return { code: String(code), message: String(message) };
}

function decode(bytes: Buffer, contentType: string | null): string {
  const headerCharset = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  const sniffed =
    headerCharset ?? /<meta[^>]+charset=["']?([\w-]+)/i.exec(bytes.subarray(0, 4096).toString('latin1'))?.[1];
  try {
    return new TextDecoder(sniffed ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** TLS context trusting Node's roots plus extra CAs, built once per list (parsing ~140 roots costs tens of ms). */
const secureContexts = new WeakMap<string[], tls.SecureContext>();
function secureContextFor(extra: string[] | undefined): tls.SecureContext | undefined {
  if (!extra?.length) return undefined;
  let context = secureContexts.get(extra);
  if (!context) {
    context = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] });
    secureContexts.set(extra, context);
  }
  return context;
}

export async function fetchPage(startUrl: URL, options: FetchOptions): Promise<FetchOutcome> {
  const secureContext = secureContextFor(options.extraCaCertificates);
  const agent = new Agent({
    connect: {
      lookup: pinnedLookup(options.guard),
      timeout: Math.min(10_000, options.hopTimeoutMs),
      ...(secureContext ? { secureContext } : {}),
    },
    headersTimeout: options.hopTimeoutMs,
    bodyTimeout: options.hopTimeoutMs,
    connections: 2,
    pipelining: 0,
  });
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('stage 1 time limit')), options.timeoutMs);
  const outcome: FetchOutcome = {
    finalUrl: startUrl.href,
    redirects: [],
    status: null,
    contentType: null,
    html: null,
    truncated: null,
    bytes: 0,
    error: null,
    timedOut: false,
  };
  let url = startUrl;
  try {
    for (let hop = 0; ; hop++) {
      await options.guard.checkUrl(url); // throws ScanTargetRefusedError for private targets
      outcome.finalUrl = url.href;
      const response = await request(url, {
        dispatcher: agent,
        method: 'GET',
        signal: controller.signal,
        headers: {
          'user-agent': options.userAgent,
          accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
          'accept-language': options.acceptLanguage,
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      response.body.on('error', () => {}); // destroying the body below (redirects, size cap) must not throw elsewhere
      outcome.status = response.statusCode;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string' && location) {
        response.body.destroy();
        if (hop >= options.maxRedirects) {
          outcome.error = {
            code: 'too_many_redirects',
            message: `Stopped after ${options.maxRedirects} redirects at ${url.href}`,
          };
          return outcome;
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          outcome.error = { code: 'bad_redirect', message: `Invalid Location header: ${location.slice(0, 200)}` };
          return outcome;
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new ScanTargetRefusedError('unsupported_scheme', `Redirect to a ${next.protocol} URL refused.`);
        }
        outcome.redirects.push(url.href);
        url = next;
        continue;
      }
      const contentType = response.headers['content-type'];
      outcome.contentType = typeof contentType === 'string' ? contentType : null;
      if (outcome.contentType && !/html|xml/i.test(outcome.contentType)) {
        response.body.destroy();
        outcome.error = { code: 'not_html', message: `The page is ${outcome.contentType.split(';')[0]}, not HTML` };
        return outcome;
      }
      // The size cap applies to the decompressed bytes.
      const encoding = String(response.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase();
      const decompressor =
        encoding === 'gzip' || encoding === 'x-gzip'
          ? zlib.createGunzip()
          : encoding === 'deflate'
            ? zlib.createInflate()
            : encoding === 'br'
              ? zlib.createBrotliDecompress()
              : null;
      const body: Readable = decompressor ? pipeline(response.body, decompressor, () => {}) : response.body;
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of body) {
          const buffer = chunk as Buffer;
          const room = options.maxPageBytes - outcome.bytes;
          if (buffer.length > room) {
            chunks.push(buffer.subarray(0, room));
            outcome.bytes += room;
            outcome.truncated = 'size';
            break;
          }
          chunks.push(buffer);
          outcome.bytes += buffer.length;
        }
      } catch (error) {
        // A timeout or abort in the middle of the body: keep what arrived.
        outcome.truncated = 'timeout';
        outcome.timedOut =
          controller.signal.aborted || /timeout/i.test(errorInfo(error).code + errorInfo(error).message);
        outcome.error = errorInfo(error);
      } finally {
        body.destroy();
        response.body.destroy();
      }
      outcome.html = decode(Buffer.concat(chunks), outcome.contentType);
      return outcome;
    }
  } catch (error) {
    if (error instanceof ScanTargetRefusedError) throw error;
    if (controller.signal.aborted && options.signal?.aborted && options.signal.reason instanceof ScanTargetRefusedError)
      throw options.signal.reason;
    outcome.error = errorInfo(error);
    outcome.timedOut = controller.signal.aborted || /timeout/i.test(outcome.error.code);
    return outcome;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    agent.destroy().catch(() => {});
  }
}
