import crypto from 'node:crypto';
import tls from 'node:tls';
import { Agent } from 'undici';
import type { Config } from './config.js';
import { OutboundClient } from './lib/outbound.js';
import { configuredResolveHost, lookupThrough } from './lib/resolve.js';
import type { Scanner, ScannerOptions } from './scanner/index.js';
import { DEFAULT_SCANNER_OPTIONS } from './scanner/options.js';
import type { ResolveHost } from './scanner/ssrf.js';

/**
 * The one outbound configuration: how names resolve (DNS_RESOLVERS) and which extra CAs are trusted (EXTRA_CA_CERTS).
 * The gateway (proxy, health checks, the nginx engine's upstream addresses, the built-in runtime's forwards), monitors,
 * webhooks, notifications, scans and the AI summary endpoint all take it from here.
 */
export interface OutboundSetup {
  resolveHost: ResolveHost;
  /** Extra trusted CA certificates (PEM). */
  caCertificates: string[];
  /** The base64 SHA-256 of each one's public key, for Chromium (which takes no CA file). */
  caSpkiSha256: string[];
}

function spkiSha256(pem: string): string {
  const spki = new crypto.X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return crypto.createHash('sha256').update(spki).digest('base64');
}

export function outboundSetup(config: Config): OutboundSetup {
  const caCertificates = [
    ...new Set([...config.outboundCaCertificates, ...(config.scanner.extraCaCertificates?.pems ?? [])]),
  ];
  return {
    resolveHost: configuredResolveHost(config.dns.resolvers, config.dns.timeoutMs),
    caCertificates,
    caSpkiSha256: caCertificates.map(spkiSha256),
  };
}

/** The guarded HTTP client of every outbound request but the scanner's (which guards each scan itself). */
export function outboundClientFromConfig(config: Config, setup = outboundSetup(config)): OutboundClient {
  return new OutboundClient({
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolveHost: setup.resolveHost,
    ca: setup.caCertificates,
  });
}

/** Connections to a service the operator configured (not a user's URL): the resolvers and CAs, without the guard. */
function unguardedDispatcher(setup: OutboundSetup): Agent {
  const ca = setup.caCertificates.length ? { ca: [...tls.rootCertificates, ...setup.caCertificates] } : {};
  return new Agent({ connect: { lookup: lookupThrough(setup.resolveHost), ...ca } });
}

export function scannerOptionsFromConfig(config: Config, setup = outboundSetup(config)): Partial<ScannerOptions> {
  return {
    chromiumPath: config.scanner.chromiumPath,
    hostResolverRules: config.scanner.hostResolverRules ?? '',
    extraCaCertificates: setup.caCertificates,
    ignoreCertSpkiList: setup.caSpkiSha256,
    resolveHost: setup.resolveHost,
    allowPrivateNetworks: config.allowPrivateNetworks,
    browserConcurrency: config.scanner.concurrency,
    scanTimeoutMs: config.scanner.scanTimeoutMs,
    observationCapMs: config.scanner.observationCapMs,
    // The AI endpoint may be a model on the operator's own network: resolvers and CAs, not the SSRF guard.
    ai: config.ai ? { ...config.ai, dispatcher: unguardedDispatcher(setup) } : null,
  };
}

/**
 * The scanner the config describes; tests pass their own (fixture CA, host mapping). Its modules (the HTML parser,
 * the tracker signatures, the consent rules) load with the first scan, not at start: until then this stands in for
 * it with the same options, checks and answers (no browser runs before a scan either way).
 */
export function scannerFromConfig(config: Config): Scanner {
  const given = scannerOptionsFromConfig(config);
  const options: ScannerOptions = {
    ...DEFAULT_SCANNER_OPTIONS,
    ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
  };
  if (!(options.browserConcurrency >= 1)) throw new RangeError('browserConcurrency must be at least 1');
  let loading: Promise<Scanner> | null = null;
  let loaded: Scanner | null = null;
  const scanner = () => (loading ??= import('./scanner/index.js').then(({ Scanner }) => (loaded = new Scanner(given))));
  const standIn: Pick<Scanner, 'options' | 'browserStats' | 'scan' | 'close'> = {
    options,
    get browserStats() {
      return loaded?.browserStats ?? { active: 0, waiting: 0 };
    },
    scan: async (request) => (await scanner()).scan(request),
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
  // Cast: the stand-in has the scanner's whole public surface; only its private browser pool is missing.
  return standIn as unknown as Scanner;
}
