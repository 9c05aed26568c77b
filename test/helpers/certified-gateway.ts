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
  /** Stops the app, then Pebble (unless a test stopped it already) and the DNS server. */
  stop(): Promise<void>;
}

/**
 * An app that orders custom domains' certificates from Pebble (HTTP-01 on the gateway's plain port, names resolved
 * by a local DNS server), with the gateway of `engine` serving TLS: the set-up of the certificate lifecycle tests.
 */
export async function startCertifiedGateway(
  engine: 'node' | 'nginx',
  options: { validitySeconds: number; renewAfterFraction: number; pollMs: number; baseDomain?: string },
): Promise<CertifiedGateway> {
  const dns = await startDns();
  const gatewayPort = await freePort();
  const pebble = await startPebble({
    httpPort: gatewayPort,
    dnsPort: dns.port,
    validitySeconds: options.validitySeconds,
  });
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
    dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 500, recheckIntervalMs: 600_000 },
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
  let tlsPort: number;
  if (engine === 'nginx') tlsPort = Number(new URL((await t.app.services.nativeGateway!.start()).https!).port);
  else {
    await t.app.services.gateway.listen(gatewayPort, '127.0.0.1');
    tlsPort = Number(new URL(await t.app.services.gatewayTls!.listen(0, '127.0.0.1')).port);
  }
  let pebbleRunning = true;
  const stopPebble = async () => {
    if (pebbleRunning) await pebble.stop();
    pebbleRunning = false;
  };
  return {
    t,
    dns,
    pebble,
    tlsPort,
    stopPebble,
    async stop() {
      await t.close();
      await stopPebble();
      dns.close();
    },
  };
}
