import type { ContainerRow } from '../../db/schema.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { Config } from '../../config.js';
import { type DriverDependencies, orchestratorFromConfig } from '../tagging-servers/drivers.js';
import { replicaBounds, TaggingServerHosting } from '../tagging-servers/hosting.js';
import { OrchestratorUnavailableError, type TaggingServerSpec } from '../tagging-servers/orchestrator.js';
import type { TenantService } from '../tenants/service.js';
import { ContainerErrors } from './errors.js';
import type { TaggingServerStatusDto } from './schemas.js';
import { type ContainerRuntimeKind, type ContainerSettingsDto, settingsFromStored } from './settings.js';

const SEALED_PREFIX = 'v1.';
export const sealPurpose = (containerId: string) => `container-config:${containerId}`;

/**
 * A container's config at rest (sealed) and its Google tagging servers (runtime `sgtm`): the spec its settings and
 * plan make, the checks on create and update, and the status the API shows.
 */
export class ContainerTaggingServers {
  constructor(private readonly deps: { hosting: TaggingServerHosting; box: SecretBox; tenants: TenantService }) {}

  get hosting(): TaggingServerHosting {
    return this.deps.hosting;
  }

  seal(containerId: string, config: string): string {
    return this.deps.box.seal(config, sealPurpose(containerId));
  }

  /** The config in clear: sealed rows opened, rows from before sealing read as they are. */
  configOf(row: Pick<ContainerRow, 'id' | 'config'>): string {
    return row.config.startsWith(SEALED_PREFIX) ? this.deps.box.open(row.config, sealPurpose(row.id)) : row.config;
  }

  /** Refuses `sgtm` where it cannot run, and replica bounds the plan does not allow. */
  async check(tenantId: string, runtime: ContainerRuntimeKind, settings: ContainerSettingsDto): Promise<void> {
    if (runtime !== 'sgtm') return;
    const unavailable = this.hosting.unavailable;
    if (unavailable) throw ContainerErrors.runtimeUnavailable(unavailable);
    const bounds = replicaBounds(settings.tagging_server, await this.deps.tenants.features(tenantId));
    if (bounds.problem === 'plan') throw ContainerErrors.replicaLimit(bounds.planMax);
    if (bounds.problem === 'order') throw ContainerErrors.invalidReplicas(bounds.min, bounds.max);
  }

  async spec(row: ContainerRow): Promise<TaggingServerSpec> {
    return this.hosting.spec({
      id: row.id,
      tenantId: row.tenantId,
      defaultHostname: row.defaultHostname,
      config: this.configOf(row),
      choice: settingsFromStored(row.settings).tagging_server,
      plan: await this.deps.tenants.features(row.tenantId),
    });
  }

  /** What the API shows of the container's tagging servers; null unless its runtime is `sgtm`. */
  async status(row: ContainerRow): Promise<TaggingServerStatusDto | null> {
    if (row.runtime !== 'sgtm') return null;
    const choice = settingsFromStored(row.settings).tagging_server;
    const base = {
      driver: this.hosting.driver ?? ('process' as const),
      preview_url: this.hosting.previewUrl(row.defaultHostname),
    };
    try {
      const state = await this.hosting.observe(row.id);
      return {
        ...base,
        state: state.phase,
        reason: state.reason,
        version: state.version ?? choice.version ?? 'stable',
        replicas: state.replicas,
      };
    } catch (error) {
      if (!(error instanceof OrchestratorUnavailableError)) throw error;
      return {
        ...base,
        state: 'unknown',
        reason: error.message,
        version: choice.version ?? 'stable',
        replicas: { ready: 0, desired: 0, min: choice.min_replicas ?? 1, max: choice.max_replicas ?? 1 },
      };
    }
  }
}

/** The containers' sealed configs and Google tagging servers, on the configured driver. */
export function containerTaggingServers(
  config: Config,
  { tenants, ...drivers }: DriverDependencies & { tenants: TenantService },
  publicTlsPort: () => number | null,
) {
  const { orchestrator, unavailable } = orchestratorFromConfig(config.taggingServers, drivers);
  const hosting = new TaggingServerHosting(orchestrator, {
    baseDomain: config.gateway.baseDomain,
    defaultVersion: config.taggingServers.version,
    publicTlsPort,
    unavailable,
  });
  return new ContainerTaggingServers({ hosting, box: drivers.secrets, tenants });
}
