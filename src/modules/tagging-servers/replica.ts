import { freeLoopbackPort } from '../../lib/ports.js';
import { type ReplicaExit, ReplicaProcess } from './replica-process.js';

export type ReplicaRole = 'tagging' | 'preview';
export type ReplicaState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped';

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** Exits before ever answering /healthz, in a row, after which a replica is `failed` (not retried). */
const FAIL_AFTER_EARLY_EXITS = 3;

export interface ReplicaIdentity {
  containerId: string;
  name: string;
  role: ReplicaRole;
  generation: number;
}

/** What the replica's row says. */
export interface ReplicaRecord {
  state: ReplicaState;
  address: string | null;
  reason: string | null;
  restarts: number;
}

export interface ReplicaContext {
  command: string;
  /** The replica's environment but PORT (a free loopback port is picked at every start). */
  env: Record<string, string>;
  healthIntervalMs: number;
  stopGraceMs: number;
  /** Takes the replica's secrets (its config) out of a line or a reason. */
  redact(text: string): string;
  record(identity: ReplicaIdentity, record: ReplicaRecord): Promise<void>;
  onLine(identity: ReplicaIdentity, stream: 'stdout' | 'stderr', line: string): void;
  onReadinessChange(identity: ReplicaIdentity): void;
  onError(error: unknown): void;
}

/**
 * One replica (`tagging-0` of generation 3, say) over its successive processes: restarts them with back-off when they
 * exit or stop answering /healthz, gives up after repeated exits before becoming ready, and records each state.
 */
export class SupervisedReplica {
  private current: ReplicaRecord = { state: 'starting', address: null, reason: null, restarts: 0 };
  private process: ReplicaProcess | null = null;
  private stopping = false;
  private earlyExits = 0;
  private backoffMs = FIRST_BACKOFF_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly identity: ReplicaIdentity,
    private readonly context: ReplicaContext,
  ) {}

  get state(): ReplicaState {
    return this.current.state;
  }

  get restarts(): number {
    return this.current.restarts;
  }

  /** Process id of the running process (its group's id too), for tests and operators. */
  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  /** It has, or is about to have, a process (not failed, not stopped). */
  get live(): boolean {
    return this.current.state === 'starting' || this.current.state === 'ready' || this.current.state === 'restarting';
  }

  start(): void {
    void this.launch().catch((error) => this.context.onError(error));
  }

  /** Ends the process (SIGTERM, SIGKILL after the grace) and any pending restart; resolves once recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.process) await this.process.stop();
    else if (this.current.state !== 'stopped') this.update({ state: 'stopped', address: null });
    await this.writes;
  }

  private async launch(): Promise<void> {
    if (this.stopping) return;
    const port = await freeLoopbackPort();
    if (this.stopping) return;
    const { command, env, healthIntervalMs, stopGraceMs, redact } = this.context;
    this.process = new ReplicaProcess({
      command,
      env: { ...env, PORT: String(port) },
      port,
      healthIntervalMs,
      stopGraceMs,
      onLine: (stream, line) => this.context.onLine(this.identity, stream, redact(line)),
      onReady: () => this.becameReady(),
      onExit: (exit) => this.exited(exit),
    });
    this.update({ state: 'starting', address: `127.0.0.1:${port}` });
  }

  private becameReady(): void {
    this.earlyExits = 0;
    this.backoffMs = FIRST_BACKOFF_MS;
    this.update({ state: 'ready', reason: null });
    this.context.onReadinessChange(this.identity);
  }

  private exited(exit: ReplicaExit): void {
    this.process = null;
    const wasReady = this.current.state === 'ready';
    if (this.stopping || exit.stopped) {
      this.update({ state: 'stopped', address: null });
    } else {
      if (!exit.everReady) this.earlyExits++;
      const reason = this.context.redact(describeExit(exit));
      if (this.earlyExits >= FAIL_AFTER_EARLY_EXITS) this.update({ state: 'failed', address: null, reason });
      else this.scheduleRestart(reason);
    }
    if (wasReady) this.context.onReadinessChange(this.identity);
  }

  private scheduleRestart(reason: string): void {
    this.update({ state: 'restarting', address: null, reason });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.current.restarts++;
      this.start();
    }, this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  /** Changes the state and queues the row's write after the earlier ones (so they land in order). */
  private update(changes: Partial<ReplicaRecord>): void {
    this.current = { ...this.current, ...changes };
    const snapshot = { ...this.current };
    this.writes = this.writes
      .then(() => this.context.record(this.identity, snapshot))
      .catch((error) => this.context.onError(error));
  }
}

/** `exited with code 1: <last stderr line>`, as Kubernetes would show a crashing container. */
export function describeExit(exit: ReplicaExit): string {
  const how = exit.unhealthy
    ? 'stopped answering /healthz'
    : exit.code !== null
      ? `exited with code ${exit.code}`
      : `killed by ${exit.signal ?? 'a signal'}`;
  return exit.lastStderrLine ? `${how}: ${exit.lastStderrLine}` : how;
}
