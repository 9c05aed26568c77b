import { createDataPlane } from '../gateway-setup.js';
import { ContainerHealth } from '../gateway/health.js';
import type { BuiltinRuntime } from '../gateway/runtime/index.js';
import { META_BATCH_MAX_EVENTS, MetaBatchingSender } from '../gateway/runtime/meta/batching-sender.js';
import { MetaConversionsSender } from '../gateway/runtime/meta/sender.js';
import { MetaSink } from '../gateway/runtime/meta/sink.js';
import type { JobDefinition } from '../jobs/definitions.js';
import { platformRequestToken, SecretBox, userSecretsBox } from '../lib/secrets.js';
import { certificateJobs } from '../modules/certificates/jobs.js';
import { CertificateService } from '../modules/certificates/service.js';
import { ForwardingAlerts } from '../modules/containers/forwarding-alerts.js';
import { containerJobs } from '../modules/containers/jobs.js';
import { ContainerService } from '../modules/containers/service.js';
import { containerTaggingServers } from '../modules/containers/tagging.js';
import { ContainerWorker } from '../modules/containers/worker.js';
import { DomainVerifier } from '../modules/domains/dns.js';
import { domainJobs } from '../modules/domains/jobs.js';
import { DomainService } from '../modules/domains/service.js';
import { MetaPixelService } from '../modules/meta-pixels/service.js';
import { outgoingLogJobs } from '../modules/outgoing-log/jobs.js';
import { OutgoingLogService } from '../modules/outgoing-log/service.js';
import { requestPowerupJobs } from '../modules/request-powerups/jobs.js';
import { RequestPowerupService } from '../modules/request-powerups/service.js';
import { supervisorFromConfig } from '../modules/tagging-servers/drivers.js';
import type { TenantService } from '../modules/tenants/service.js';
import type { Shared } from './shared.js';

/**
 * Whether the built-in runtime serves: this process's runtime when it has the gateway role; a process without it
 * (an API instance) cannot see the gateways' runtimes and does not call them unhealthy.
 */
function builtinRuntimeReady(gatewayRole: boolean, runtime: BuiltinRuntime): () => boolean {
  return gatewayRole ? () => runtime.ready : () => true;
}

/** Containers, their domains and certificates, the tagging servers and the data plane that serves them. */
export function buildHosting(shared: Shared, { tenants }: { tenants: TenantService }) {
  const { database, config, invalidations, outbound, events, jobs, onError, log } = shared;
  const drivers = { database, invalidations, secrets: userSecretsBox(config) };
  const taggingServers = containerTaggingServers(config, { ...drivers, tenants }, () => dataPlane.tlsPort());
  const gatewayRole = config.roles.includes('gateway');
  const containerWorker = new ContainerWorker(
    { database, outbound, events, invalidations, jobs, tagging: taggingServers },
    { delayMs: config.containerTransitionDelayMs, startTimeoutMs: config.taggingServers.startTimeoutMs },
  );
  const secrets = config.secretsKey ? new SecretBox(config.secretsKey) : null;
  const certificates = new CertificateService({ database, events, invalidations }, { acme: config.acme, secrets });
  const dataPlane = createDataPlane(config, {
    database,
    invalidations,
    outbound,
    certificates,
    tagging: taggingServers.hosting,
    onError,
    log,
  });
  const containers = new ContainerService(
    {
      database,
      outbound,
      events,
      runtime: containerWorker,
      tenants,
      traffic: dataPlane.gateway,
      invalidations,
      health: new ContainerHealth(
        outbound,
        config.gateway.upstreamTimeoutMs,
        builtinRuntimeReady(gatewayRole, dataPlane.runtime),
        async (containerId) => (await taggingServers.hosting.endpoints(containerId)).tagging,
      ),
      tagging: taggingServers,
    },
    { gatewayBaseDomain: config.gateway.baseDomain },
  );
  const domains = new DomainService(
    {
      database,
      containers,
      certificates,
      events,
      invalidations,
      verifier: new DomainVerifier({
        servers: config.dns.resolvers,
        timeoutMs: config.dns.timeoutMs,
        gatewayIps: config.gateway.publicIps,
      }),
    },
    {
      gatewayBaseDomain: config.gateway.baseDomain,
      gatewayIps: config.gateway.publicIps,
      recheckIntervalMs: config.dns.recheckIntervalMs,
      pendingTtlMs: config.domainPendingTtlHours * 3_600_000,
    },
  );
  const metaPixels = new MetaPixelService({ database, containers, invalidations }, { secrets });
  const metaSink = new MetaSink(
    {
      pixels: metaPixels,
      sender: new MetaBatchingSender(new MetaConversionsSender({ http: outbound }, config.meta), {
        windowMs: config.meta.batchWindowMs,
        maxEvents: META_BATCH_MAX_EVENTS,
      }),
      invalidations,
    },
    { maxAttempts: config.runtime.forwardMaxAttempts, onError },
  );
  dataPlane.runtime.addSink(metaSink.sink);
  const outgoingLog = new OutgoingLogService({ database, containers, writer: dataPlane.outgoing }, config.retention);
  const requestPowerups = new RequestPowerupService(
    { database, containers },
    { ...config.powerupRequests, platformToken: platformRequestToken(config) },
  );
  const jobDefinitions: JobDefinition[] = [
    ...containerJobs(containerWorker, new ForwardingAlerts({ database, events })),
    ...domainJobs(domains, config.dns),
    ...certificateJobs(certificates, config.acme),
    ...outgoingLogJobs(outgoingLog, config.retention),
    ...requestPowerupJobs(requestPowerups, config.retention),
  ];
  return {
    ...dataPlane,
    containers,
    containerWorker,
    domains,
    certificates,
    metaPixels,
    outgoingLog,
    requestPowerups,
    taggingServers,
    taggingSupervisor: gatewayRole ? supervisorFromConfig(config.taggingServers, drivers, onError) : null,
    jobDefinitions,
  };
}
