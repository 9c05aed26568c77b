import { DEFAULT_HOST_RESOLVER_RULES } from './browser-pool.js';
import type { ResolveHost } from './ssrf.js';
import type { OpenAiCompatibleConfig } from './summary.js';

/** How a Scanner runs: the browser, the network it may reach, its limits and the summary writer. */
export interface ScannerOptions {
  /** Chromium binary for the browser stage and Lighthouse. Default '/usr/lib/chromium/chromium'. */
  chromiumPath: string;
  /** Chromium --host-resolver-rules. Default 'MAP * ~NOTFOUND , EXCLUDE 127.0.0.1' (no outside network); '' passes none. */
  hostResolverRules?: string;
  /** Test-only: allow targets on loopback/private networks. Default false. */
  allowPrivateNetworks: boolean;
  /** Extra PEM CA certificates trusted by the stage-1 fetch (in addition to Node's bundled roots). */
  extraCaCertificates?: string[];
  /** base64 SHA-256 SPKI hashes passed to Chromium's --ignore-certificate-errors-spki-list (test certificates). */
  ignoreCertSpkiList?: string[];
  /** Browser scans at a time. Default 2. */
  browserConcurrency: number;
  /** Total time limit of one scan; past it, what was gathered is returned with warnings. Default 45000. */
  scanTimeoutMs: number;
  /**
   * Longest observation in the browser after load (a simulated visitor, then waiting for network quiet and due
   * timers). Default 10000.
   */
  observationCapMs: number;
  /** Stage-1 body cap in bytes. Default 5 MB. */
  maxPageBytes: number;
  /** OpenAI-compatible chat completions endpoint for ai_summary; builtin writer when null. */
  ai?: OpenAiCompatibleConfig | null;
  /** DNS resolution used by the SSRF guard (tests map hostnames to 127.0.0.1). Default: the system resolver. */
  resolveHost?: ResolveHost;
}

export const DEFAULT_SCANNER_OPTIONS: ScannerOptions = {
  chromiumPath: '/usr/lib/chromium/chromium',
  hostResolverRules: DEFAULT_HOST_RESOLVER_RULES,
  allowPrivateNetworks: false,
  browserConcurrency: 2,
  scanTimeoutMs: 45_000,
  observationCapMs: 10_000,
  maxPageBytes: 5 * 1024 * 1024,
  ai: null,
};
