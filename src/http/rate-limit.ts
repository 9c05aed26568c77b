import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { HttpCodes } from './errors.js';

const WINDOW_SECONDS = 60;

/** ioredis loads only when REDIS_URL is set: an instance that counts in memory never loads it. */
const loadIoredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis');

/** Builds a limiter of `points` per `durationSeconds`, named so that its counters do not mix with others'. */
export type LimiterFactory = (name: string, points: number, durationSeconds: number) => RateLimiterAbstract;

/**
 * The one way limiters are built: in memory without Redis; with Redis, shared by every instance, with an
 * in-memory insurance limiter that takes over while Redis is unreachable.
 */
export function limiterFactory(redis: Redis | null): LimiterFactory {
  return (name, points, duration) => {
    if (!redis) return new RateLimiterMemory({ keyPrefix: name, points, duration });
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `tagport:rl:${name}`,
      points,
      duration,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${name}-insurance`, points, duration }),
    });
  };
}

interface Policy {
  name: 'token' | 'page' | 'ip';
  limiter: RateLimiterAbstract;
  quota: number;
  quotaText: string;
  /** The constant `RateLimit-Policy` value. */
  header: string;
}

/**
 * Request rate limits (rate-limiter-flexible): per credential for authenticated requests; per session, on a
 * budget of their own, for the dashboard's pages a signed-in browser loads (so colleagues behind one address do
 * not share the anonymous quota, and clicking around does not eat the session's API budget); per IP for the rest.
 * In memory by default; shared by every instance through Redis when REDIS_URL is set.
 */
export class RateLimits {
  private readonly token: Policy;
  private readonly page: Policy;
  private readonly ip: Policy;
  private readonly publicScans: RateLimiterAbstract;
  private readonly publicScanQuota: number;
  readonly redis: Redis | null;
  /** Builds further limiters on the same store (the login throttle). */
  readonly createLimiter: LimiterFactory;

  constructor(config: Config) {
    this.redis = config.redisUrl
      ? new (loadIoredis().Redis)(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
      : null;
    this.redis?.on('error', () => {
      /* the in-memory insurance limiter takes over while Redis is unreachable */
    });
    this.createLimiter = limiterFactory(this.redis);
    this.token = this.policy('token', config.rateLimitPerMinute);
    this.page = this.policy('page', config.rateLimitPerMinute);
    this.ip = this.policy('ip', config.anonymousRateLimitPerMinute);
    this.publicScanQuota = config.publicScansPerHour;
    this.publicScans = this.createLimiter('public-scan', config.publicScansPerHour, 3600);
  }

  private policy(name: Policy['name'], quota: number): Policy {
    return {
      name,
      quota,
      quotaText: String(quota),
      header: `"${name}";q=${quota};w=${WINDOW_SECONDS}`,
      limiter: this.createLimiter(name, quota, WINDOW_SECONDS),
    };
  }

  /** Waits until Redis is connected (when configured), so the first requests are counted in the shared store. */
  async ready(timeoutMs = 5000): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis not reachable within ${timeoutMs} ms`)), timeoutMs);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Counts the request, sets the RateLimit headers, and rejects with 429 rate_limited when over the limit.
   * `pageSession`: the signed-in session of a page outside the API, counted on its own budget.
   */
  apply(request: FastifyRequest, reply: FastifyReply, pageSession: string | null = null): Promise<void> {
    const credential = request.authContext?.apiKeyId ?? request.authContext?.sessionId;
    const [policy, key] = credential
      ? [this.token, credential]
      : pageSession
        ? [this.page, pageSession]
        : [this.ip, request.ip];
    return policy.limiter.consume(key).then(
      (result) => void this.setHeaders(reply, policy, result),
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const resetSeconds = this.setHeaders(reply, policy, rejection);
        throw HttpCodes.rateLimited.error(
          `Rate limit of ${policy.quota} requests per minute exceeded; retry in ${resetSeconds} s.`,
          {
            headers: { 'retry-after': String(resetSeconds) },
            details: { limit: policy.quota, window_seconds: WINDOW_SECONDS, retry_after_seconds: resetSeconds },
          },
        );
      },
    );
  }

  /** Sets the RateLimit headers of a policy and returns the seconds until the window resets. */
  private setHeaders(reply: FastifyReply, policy: Policy, result: RateLimiterRes): number {
    const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    const remaining = Math.max(0, result.remainingPoints);
    reply.headers({
      'ratelimit-policy': policy.header,
      ratelimit: `"${policy.name}";r=${remaining};t=${resetSeconds}`,
      'x-ratelimit-limit': policy.quotaText,
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)),
    });
    return resetSeconds;
  }

  /** The public tracking checker: scans per hour per IP, as a "public-scan" item in the RateLimit headers. */
  async consumePublicScan(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let result: RateLimiterRes;
    let limited = false;
    try {
      result = await this.publicScans.consume(request.ip);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      result = rejection;
      limited = true;
    }
    const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    const append = (name: string, item: string) => {
      const existing = reply.getHeader(name);
      reply.header(name, existing ? `${existing}, ${item}` : item);
    };
    append('ratelimit-policy', `"public-scan";q=${this.publicScanQuota};w=3600`);
    append('ratelimit', `"public-scan";r=${Math.max(0, result.remainingPoints)};t=${resetSeconds}`);
    if (limited) {
      throw HttpCodes.publicScanLimit.error(
        `The public checker allows ${this.publicScanQuota} scans per hour per address; retry in ${resetSeconds} s, or use the API with a key.`,
        {
          headers: { 'retry-after': String(resetSeconds) },
        },
      );
    }
  }

  /** Whether Redis answers a PING (null without REDIS_URL): reported by `/readyz`. */
  async redisState(timeoutMs = 1000): Promise<'ok' | 'unreachable' | null> {
    if (!this.redis) return null;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer')), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping(), late]);
      return 'ok';
    } catch {
      return 'unreachable';
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}
