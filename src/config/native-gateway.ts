import type { Config } from '../config.js';
import { platformRequestToken } from '../lib/secrets.js';
import type { NativeEngineSettings } from '../gateway/native/engine.js';

/** The nginx engine's settings (GATEWAY_ENGINE=nginx) from the gateway's configuration. */
export function nativeEngineSettings(config: Config, onError: (error: unknown) => void): NativeEngineSettings {
  const { gateway } = config;
  return {
    nginxPath: gateway.nginxPath ?? '/usr/sbin/nginx',
    workers: gateway.workers ?? 1,
    host: config.host,
    httpPort: gateway.port,
    tlsPort: gateway.tlsPort ?? null,
    baseDomain: gateway.baseDomain,
    certFile: gateway.tlsCertFile ?? null,
    keyFile: gateway.tlsKeyFile ?? null,
    caFile: gateway.caFile ?? '/etc/ssl/certs/ca-certificates.crt',
    // The CAs every other outbound request trusts (EXTRA_CA_CERTS, and SCANNER_EXTRA_CA_CERTS, its older name).
    extraCaCertificates: [
      ...new Set([...config.outboundCaCertificates, ...(config.scanner.extraCaCertificates?.pems ?? [])]),
    ],
    upstreamTimeoutMs: gateway.upstreamTimeoutMs,
    platformToken: platformRequestToken(config),
    internalPort: gateway.nginxInternalPort ?? 0,
    nativeLimit: gateway.nginxNativeLimit ?? 25_000,
    runParent: gateway.nginxDir ?? undefined,
    onError,
  };
}
