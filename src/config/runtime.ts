import { type Env, integer, origin } from './env.js';

/** The built-in container runtime (src/gateway/runtime/): where Google's scripts and collection live, forwarding. */
export interface RuntimeConfig {
  /** Origin gtm.js and gtag/js are fetched from for the custom loader. */
  googleTagOrigin: string;
  /** Origin GA4 hits are forwarded to (`/g/collect`). */
  ga4CollectOrigin: string;
  /** Forwards held, at most; beyond, new hits are answered 503 (not acknowledged) and counted as refused. */
  forwardQueueSize: number;
  /** Forwards in flight at once, across vendors. */
  forwardConcurrency: number;
  /** Keep-alive connections to GA4's collection origin per gateway process, at most (more open while answers are slow). */
  forwardConnections: number;
  /** GA4 hits written on one connection before their answers are back (HTTP/1.1 pipelining); 1 turns it off. */
  forwardPipelining: number;
  forwardTimeoutMs: number;
  /** Attempts per event (the first included) before it counts as failed. */
  forwardMaxAttempts: number;
  /** Backoff before the second attempt; doubled for each next one, with jitter. */
  forwardRetryBaseMs: number;
  /** How long a stop waits for held forwards to be delivered before they count as failed. */
  forwardDrainMs: number;
  /**
   * Delivered forwards written to the outgoing log per container and second, at most; beyond, delivered ones are
   * sampled (only counted in usage). Failed forwards and conversions (an event id, transaction id or value) are
   * always written.
   */
  outgoingLogDeliveredPerSecond: number;
}

export function runtimeConfig(env: Env): RuntimeConfig {
  return {
    googleTagOrigin: origin(env, 'GOOGLE_TAG_ORIGIN', 'https://www.googletagmanager.com'),
    ga4CollectOrigin: origin(env, 'GA4_COLLECT_ORIGIN', 'https://region1.google-analytics.com'),
    forwardQueueSize: integer(env, 'RUNTIME_FORWARD_QUEUE_SIZE', 10_000, 1),
    forwardConcurrency: integer(env, 'RUNTIME_FORWARD_CONCURRENCY', 128, 1),
    forwardConnections: integer(env, 'RUNTIME_FORWARD_CONNECTIONS', 32, 1),
    forwardPipelining: integer(env, 'RUNTIME_FORWARD_PIPELINING', 16, 1),
    forwardTimeoutMs: integer(env, 'RUNTIME_FORWARD_TIMEOUT_MS', 10_000, 100),
    forwardMaxAttempts: integer(env, 'RUNTIME_FORWARD_MAX_ATTEMPTS', 10, 1),
    forwardRetryBaseMs: integer(env, 'RUNTIME_FORWARD_RETRY_BASE_MS', 1000, 1),
    forwardDrainMs: integer(env, 'RUNTIME_FORWARD_DRAIN_MS', 5_000, 0),
    outgoingLogDeliveredPerSecond: integer(env, 'OUTGOING_LOG_DELIVERED_PER_SECOND', 50, 0),
  };
}
