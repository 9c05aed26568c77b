import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './app.js';
import { startDns, type TestDns } from './dns.js';
import { testGateway } from './gateway-app.js';
import { startPebble, type Pebble } from './pebble.js';
import { freePort } from './processes.js';

export interface CertifiedGateway {
  t: TestApp;
  /** The DNS server the app resolves custom domains with (records set per test). */
  dns: TestDns;
  pebble: Pebble;
  /** Where the engine ends TLS for every hostname. */
  tlsPort: number;
  /** Stops the CA: every order from then on fails. */
  stopPebble(): Promise<void>;
}

/**
 * An app that orders custom domains' certificates from Pebble (HTTP-01 on the gateway's plain port, names resolved
 * by a local DNS server), with the gateway of `engine` serving TLS: the set-up of the certificate lifecycle tests.
 */
/**
 * What every set-up started and has not stopped: a set-up its `beforeAll` gave up on (a hook timeout on a loaded
 * machine) never hands its gateway to the test, so `stopCertifiedGateways()` in `afterAll` stops what it started.
 */
const running = new Set<() => Promise<void> | void>();

function started(stop: () => Promise<void> | void): () => Promise<void> {
  const once = async () => {
    if (!running.delete(once)) return;
    await stop();
  };
  running.add(once);
  return once;
}

/** Stops every set-up of this file still running (the app first, then Pebble and the DNS server). */
export async function stopCertifiedGateways(): Promise<void> {
  for (const stop of [...running].reverse()) await stop();
}

export async function startCertifiedGateway(
  engine: 'node' | 'nginx',
  options: { validitySeconds: number; renewAfterFraction: number; pollMs: number; baseDomain?: string },
): Promise<CertifiedGateway> {
  const dns = await startDns();
  started(() => dns.close());
  const gatewayPort = await freePort();
  const pebble = await startPebble({
    httpPort: gatewayPort,
    dnsPort: dns.port,
    validitySeconds: options.validitySeconds,
  });
  const stopPebble = started(() => pebble.stop());
  const t = await startTestApp('pglite', {
    allowPrivateNetworks: true,
    containerTransitionDelayMs: 10,
    gateway: testGateway({
      port: gatewayPort,
      ...(options.baseDomain ? { baseDomain: options.baseDomain } : {}),
      publicIps: ['127.0.0.1'],
      tlsPort: 0,
      engine,
    }),
    dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 600_000 },
    secretsKey: randomBytes(32),
    acme: {
      directoryUrl: pebble.directoryUrl,
      email: null,
      caCertificates: [pebble.directoryCa],
      renewAfterFraction: options.renewAfterFraction,
      retryBaseMs: 1000,
      retryMaxMs: 2000,
      pollMs: options.pollMs,
    },
  });
  started(() => t.close());
  let tlsPort: number;
  if (engine === 'nginx') tlsPort = Number(new URL((await t.app.services.nativeGateway!.start()).https!).port);
  else {
    await t.app.services.gateway.listen(gatewayPort, '127.0.0.1');
    tlsPort = Number(new URL(await t.app.services.gatewayTls!.listen(0, '127.0.0.1')).port);
  }
  return {
    t,
    dns,
    pebble,
    tlsPort,
    stopPebble,
  };
}
