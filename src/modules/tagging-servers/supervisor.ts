import type { Database } from '../../db/index.js';
import { EVERYTHING, type InvalidationBus } from '../../db/invalidation.js';
import { startLoop } from '../../lib/loop.js';
import type { SecretBox } from '../../lib/secrets.js';
import { LogSink } from './log-sink.js';
import { configPurpose, TAGGING_SERVER_INVALIDATION } from './process-driver.js';
import * as queries from './queries.js';
import { type ReplicaIdentity, type ReplicaRole, SupervisedReplica } from './replica.js';

const DEFAULT_RECONCILE_INTERVAL_MS = 5_000;
const DEFAULT_LOG_FLUSH_INTERVAL_MS = 1_000;
const PREVIEW_REPLICA = 'preview-0';

export interface TaggingServerSupervisorDependencies {
  database: Database;
  invalidations: InvalidationBus;
  secrets: SecretBox;
}

export interface TaggingServerSupervisorSettings {
  /** Google's tagging server, run as `/bin/sh -c 'exec <command>'` (SGTM_COMMAND), e.g. `node /opt/gtm/server_bin.js`. */
  command: string;
  /** More environment for every replica (NODE_EXTRA_CA_CERTS, say); Tagport's own environment is never passed. */
  extraEnv?: Record<string, string>;
  /** How often a ready replica's /healthz is checked; three failures in a row restart it. */
  healthIntervalMs: number;
  /** How long a replica has between SIGTERM and SIGKILL. */
  stopGraceMs: number;
  /** The full reconcile, besides the one each invalidation triggers. */
  reconcileIntervalMs?: number;
  logFlushIntervalMs?: number;
  /** Written to each replica's row (host and pid, say). */
  supervisorName: string;
  onError: (error: unknown) => void;
}

/** A running replica as `processes()` lists it. */
export interface SupervisedProcess extends ReplicaIdentity {
  state: string;
  pid: number | null;
  restarts: number;
}

/**
 * The `process` driver's reconciler, run by one Tagport process: makes the replicas of every
 * `tagging_server_deployments` row run on loopback (`tagging-0..N-1` and `preview-0` of its generation), replaces
 * older generations one replica at a time, stops what is scaled to zero or removed, and records replicas and their
 * output for the `ProcessOrchestrator` of any process to read. Children end with it, even when it is SIGKILLed
 * (replica-process.ts).
 */
export class TaggingServerSupervisor {
  private readonly replicas = new Map<string, SupervisedReplica>();
  private readonly logs: LogSink;
  private loop: { stop(): Promise<void> } | null = null;
  private subscribed = false;
  private stopped = true;
  private pass: Promise<void> | null = null;
  private nextPass: Promise<void> | null = null;

  constructor(
    private readonly dependencies: TaggingServerSupervisorDependencies,
    private readonly settings: TaggingServerSupervisorSettings,
  ) {
    this.logs = new LogSink(dependencies.database.db, {
      flushIntervalMs: settings.logFlushIntervalMs ?? DEFAULT_LOG_FLUSH_INTERVAL_MS,
      onError: settings.onError,
    });
  }

  private get db() {
    return this.dependencies.database.db;
  }

  /** Marks what an earlier supervisor left as stopped (its children died with it), then reconciles. */
  async start(): Promise<void> {
    this.stopped = false;
    await queries.markLiveReplicasStopped(this.db, 'the supervising process restarted');
    if (!this.subscribed) {
      this.subscribed = true;
      this.dependencies.invalidations.subscribe((invalidation) => {
        if (invalidation.kind === TAGGING_SERVER_INVALIDATION || invalidation.kind === EVERYTHING.kind)
          this.reconcileSoon();
      });
    }
    this.loop = startLoop(
      () => this.reconcile(),
      this.settings.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS,
      this.settings.onError,
    );
    this.reconcileSoon();
  }

  /** Stops every replica (rows marked stopped) and writes the last output. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop?.stop();
    this.loop = null;
    await this.nextPass?.catch(() => {});
    await this.pass?.catch(() => {});
    await Promise.all([...this.replicas.values()].map((replica) => replica.stop()));
    this.replicas.clear();
    await this.logs.flush();
  }

  /** One reconcile of every container now; a call while one runs is served by one more pass after it. */
  reconcile(): Promise<void> {
    if (!this.pass) {
      this.pass = this.reconcileAll().finally(() => {
        this.pass = null;
      });
      return this.pass;
    }
    this.nextPass ??= this.pass
      .catch(() => {})
      .then(() => {
        this.nextPass = null;
        return this.reconcile();
      });
    return this.nextPass;
  }

  /** The replicas this supervisor holds, with their process ids. */
  processes(containerId?: string): SupervisedProcess[] {
    return [...this.replicas.values()]
      .filter((replica) => !containerId || replica.identity.containerId === containerId)
      .map((replica) => ({ ...replica.identity, state: replica.state, pid: replica.pid, restarts: replica.restarts }));
  }

  private reconcileSoon(): void {
    if (!this.stopped) void this.reconcile().catch(this.settings.onError);
  }

  private async reconcileAll(): Promise<void> {
    if (this.stopped) return;
    const deployments = new Map((await queries.listDeployments(this.db)).map((row) => [row.containerId, row]));
    const containerIds = new Set([
      ...deployments.keys(),
      ...[...this.replicas.values()].map((replica) => replica.identity.containerId),
      ...(await queries.containersWithoutDeployment(this.db)),
    ]);
    await Promise.all(
      [...containerIds].map((id) =>
        this.reconcileContainer(id, deployments.get(id) ?? null).catch(this.settings.onError),
      ),
    );
  }

  private async reconcileContainer(containerId: string, deployment: queries.DeploymentRow | null): Promise<void> {
    const held = this.replicasOf(containerId);
    if (!deployment || deployment.replicas === 0) {
      await Promise.all(held.map((replica) => this.retire(replica, { deleteRow: false })));
      if (!deployment) {
        await this.logs.flush();
        await queries.deleteLeftovers(this.db, containerId);
      }
      return;
    }
    const names = replicaNames(deployment.replicas);
    const extra = held.filter((replica) => !names.includes(replica.identity.name));
    await Promise.all(extra.map((replica) => this.retire(replica, { deleteRow: true })));
    let rollingOut = false;
    for (const name of names) {
      rollingOut = (await this.reconcileReplica(deployment, name, rollingOut)) || rollingOut;
    }
    const olderHeld = this.replicasOf(containerId).some(
      (replica) => replica.identity.generation < deployment.generation,
    );
    if (!olderHeld && !this.stopped)
      await queries.deleteStaleReplicaRows(this.db, containerId, deployment.generation, names);
  }

  /**
   * Brings one replica name to the deployment's generation: starts it at once when nothing older serves under that
   * name, otherwise only when no other name is being replaced (`rollingOut`), and retires the older ones once it is
   * ready. True while this name is being replaced.
   */
  private async reconcileReplica(deployment: queries.DeploymentRow, name: string, rollingOut: boolean) {
    const { containerId, generation } = deployment;
    const held = this.replicasOf(containerId).filter((replica) => replica.identity.name === name);
    const current = held.find((replica) => replica.identity.generation === generation);
    const older = held.filter((replica) => replica.identity.generation < generation);
    const olderServing = older.some((replica) => replica.live);
    if (current?.state === 'ready' || !olderServing) {
      await Promise.all(older.map((replica) => this.retire(replica, { deleteRow: true })));
    }
    if (current) return olderServing && current.state !== 'ready';
    if (this.stopped || (olderServing && rollingOut)) return olderServing;
    this.launch(deployment, name);
    return olderServing;
  }

  private launch(deployment: queries.DeploymentRow, name: string): void {
    const { containerId, generation } = deployment;
    const role: ReplicaRole = name === PREVIEW_REPLICA ? 'preview' : 'tagging';
    const config = this.dependencies.secrets.open(deployment.sealedConfig, configPurpose(containerId));
    const identity: ReplicaIdentity = { containerId, name, role, generation };
    const replica = new SupervisedReplica(identity, {
      command: this.settings.command,
      env: this.environment(config, role, deployment.previewServerUrl),
      healthIntervalMs: this.settings.healthIntervalMs,
      stopGraceMs: this.settings.stopGraceMs,
      redact: redactor(config),
      record: (who, record) =>
        queries.writeReplica(this.db, {
          ...who,
          ...record,
          supervisor: this.settings.supervisorName,
        }),
      onLine: (who, stream, line) => this.logs.push(who.containerId, who.name, stream, line),
      onReadinessChange: (who) => this.readinessChanged(who.containerId),
      onError: this.settings.onError,
    });
    this.replicas.set(keyOf(identity), replica);
    replica.start();
  }

  /**
   * Google's contract and nothing of Tagport's own environment (DATABASE_URL, SECRETS_KEY, …): PATH and HOME, the
   * operator's extra variables, then CONTAINER_CONFIG, and PREVIEW_SERVER_URL or RUN_AS_PREVIEW_SERVER.
   */
  private environment(config: string, role: ReplicaRole, previewServerUrl: string): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      ...this.settings.extraEnv,
      CONTAINER_CONFIG: config,
    };
    if (role === 'preview') env.RUN_AS_PREVIEW_SERVER = 'true';
    else env.PREVIEW_SERVER_URL = previewServerUrl;
    return env;
  }

  /** The gateway drops its cached route of the container; a rollout may go on. */
  private readinessChanged(containerId: string): void {
    if (this.stopped) return;
    this.dependencies.invalidations.publish({ kind: 'container', id: containerId }).catch(this.settings.onError);
    this.reconcileSoon();
  }

  private async retire(replica: SupervisedReplica, { deleteRow }: { deleteRow: boolean }): Promise<void> {
    await replica.stop();
    this.replicas.delete(keyOf(replica.identity));
    const { containerId, name, generation } = replica.identity;
    if (deleteRow) await queries.deleteReplica(this.db, containerId, name, generation);
  }

  private replicasOf(containerId: string): SupervisedReplica[] {
    return [...this.replicas.values()].filter((replica) => replica.identity.containerId === containerId);
  }
}

/** `tagging-0` … `tagging-<n-1>`, then `preview-0`. */
function replicaNames(taggingReplicas: number): string[] {
  return [...Array.from({ length: taggingReplicas }, (_, index) => `tagging-${index}`), PREVIEW_REPLICA];
}

function keyOf({ containerId, name, generation }: ReplicaIdentity): string {
  return `${containerId}/${name}/${generation}`;
}

/**
 * Replaces the config string, its decoded text and its `auth` value wherever a replica prints them: they grant
 * access to the GTM container, and lines and reasons end up in the database and the API.
 */
export function redactor(config: string): (text: string) => string {
  const decoded = Buffer.from(config, 'base64').toString('utf8');
  const auth = new URLSearchParams(decoded).get('auth');
  const secrets = [config, decoded, auth]
    .filter((secret): secret is string => Boolean(secret && secret.length >= 6))
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}
