import type { Config } from './config.js';
import { nativeEngineSettings } from './config/native-gateway.js';
import type { Database } from './db/index.js';
import type { InvalidationBus } from './db/invalidation.js';
import { GatewayFront } from './gateway/front.js';
import { NginxEngine } from './gateway/native/engine.js';
import { BuiltinRuntime } from './gateway/runtime/index.js';
import { platformRequestToken, visitorIdKey } from './lib/secrets.js';
import { Gateway } from './gateway/server.js';
import { TlsGateway } from './gateway/tls.js';
import type { OutboundClient } from './lib/outbound.js';
import type { CertificateService } from './modules/certificates/service.js';
import { ContainerTraffic, type TaggingEndpoints } from './modules/containers/traffic.js';
import { OutgoingLogWriter } from './modules/outgoing-log/writer.js';
import { DelayedRequestIntake } from './modules/request-powerups/intake.js';
import type { ScanLog } from './modules/tracking-checker/worker.js';

export interface DataPlaneDependencies {
  database: Database;
  invalidations: InvalidationBus;
  outbound: OutboundClient;
  certificates: CertificateService;
  /** Where `sgtm` containers' tagging replicas are. */
  tagging: TaggingEndpoints;
  onError: (error: unknown) => void;
  log: ScanLog;
}

/**
 * The data plane of one process, as configured: the gateway (routes, metering, relays), the built-in runtime, and
 * the listeners in front of it (the TLS one, or nginx with GATEWAY_ENGINE=nginx). Nothing listens until asked.
 */
export function createDataPlane(config: Config, deps: DataPlaneDependencies) {
  const { database, invalidations, outbound, onError } = deps;
  const certificates = deps.certificates.enabled ? deps.certificates : null;
  const traffic = new ContainerTraffic({ database, tagging: deps.tagging }, config.gateway.baseDomain);
  // What the runtime sent to vendors and what they answered, written about once a second off the hit path.
  const outgoing = new OutgoingLogWriter(database.db, {
    flushIntervalMs: 1000,
    maxBuffered: 10_000,
    deliveredPerSecond: config.runtime.outgoingLogDeliveredPerSecond,
    onError,
    log: deps.log,
  });
  const runtime = new BuiltinRuntime(
    { dispatcher: outbound.dispatcher, connect: (origin) => outbound.connect(origin), traffic, outgoing },
    { ...config.runtime, trustProxy: config.trustProxy, visitorIdKey: visitorIdKey(config), onError, log: deps.log },
  );
  /** The https port clients reach the gateway on, once it listens. */
  const tlsPort = (): number | null => nativeGateway?.tlsPort ?? gatewayTls?.port ?? null;
  const gateway = new Gateway(
    {
      traffic,
      runtime,
      invalidations,
      outbound,
      front: new GatewayFront(certificates, tlsPort, onError),
      delayed: new DelayedRequestIntake(database),
    },
    { ...config.gateway, platformToken: platformRequestToken(config), onError },
  );
  const gatewayTls =
    (config.gateway.tlsPort ?? null) === null
      ? null
      : new TlsGateway(
          { certificates, invalidations, handler: gateway.requestListener },
          {
            baseDomain: config.gateway.baseDomain,
            certFile: config.gateway.tlsCertFile ?? null,
            keyFile: config.gateway.tlsKeyFile ?? null,
            onError,
          },
        );
  const nativeGateway =
    config.gateway.engine === 'nginx'
      ? new NginxEngine(
          { gateway, traffic, outbound, invalidations, certificates },
          nativeEngineSettings(config, onError),
        )
      : null;
  return { traffic, runtime, outgoing, gateway, gatewayTls, nativeGateway, tlsPort };
}
