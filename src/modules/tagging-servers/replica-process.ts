import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** Longer lines are cut here: a replica printing without newlines must not grow the supervisor's memory. */
const MAX_LINE_CHARS = 8_192;
/** A ready replica failing this many health checks in a row is restarted. */
const UNHEALTHY_AFTER_FAILURES = 3;
/** How long output may still arrive after the process exited. */
const OUTPUT_DRAIN_MS = 2_000;
/** How often a starting replica's /healthz is tried, at most. */
const STARTUP_POLL_MS = 200;

/**
 * Kills the replica's process group once its stdin reaches end of file, which happens when the supervising process
 * dies however it dies (SIGKILL included): the kernel closes the pipe's other end. `$0` is the group, `$1` the grace
 * in seconds. A shell of its own (detached), so a signal to the supervisor's group does not take it down first.
 */
const WATCHDOG_SCRIPT =
  'read _ignored; kill -s TERM -- "-$0" 2>/dev/null; sleep "$1"; kill -s KILL -- "-$0" 2>/dev/null; exit 0';

export interface ReplicaExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It answered /healthz with 200 at least once. */
  everReady: boolean;
  /** The supervisor stopped it because it failed its health checks while ready. */
  unhealthy: boolean;
  /** `stop()` ended it. */
  stopped: boolean;
  lastStderrLine: string | null;
}

export interface ReplicaProcessOptions {
  command: string;
  /** The whole environment of the process (nothing is inherited). */
  env: Record<string, string>;
  port: number;
  healthIntervalMs: number;
  stopGraceMs: number;
  onLine(stream: 'stdout' | 'stderr', line: string): void;
  onReady(): void;
  onExit(exit: ReplicaExit): void;
}

/**
 * One run of a tagging server: `/bin/sh -c 'exec <command>'` in a process group of its own, its output split into
 * lines, its `/healthz` polled, and a watchdog that ends the group if the supervising process dies.
 */
export class ReplicaProcess {
  readonly pid: number;
  private readonly child: ChildProcess;
  private readonly watchdog: ChildProcess | null;
  private everReady = false;
  private unhealthy = false;
  private stopping = false;
  private failedChecks = 0;
  private healthTimer: NodeJS.Timeout | null = null;
  private lastStderrLine: string | null = null;
  private readonly exited: Promise<void>;

  constructor(private readonly options: ReplicaProcessOptions) {
    this.child = spawn('/bin/sh', ['-c', `exec ${options.command}`], {
      detached: true,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A failed spawn of /bin/sh itself reports through 'error' and 'close' (code null): nothing more to do here.
    this.child.on('error', () => {});
    this.pid = this.child.pid ?? -1;
    this.watchdog = this.pid > 0 ? spawnWatchdog(this.pid, options.stopGraceMs) : null;
    this.readLines(this.child.stdout, 'stdout');
    this.readLines(this.child.stderr, 'stderr');
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => this.afterExit());
      this.child.once('close', (code, signal) => {
        this.finish(code, signal);
        resolve();
      });
    });
    this.scheduleHealthCheck(0);
  }

  /** SIGTERM to the group, SIGKILL after the grace; resolves once it has exited. */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.killGroup('SIGTERM');
      const kill = setTimeout(() => this.killGroup('SIGKILL'), this.options.stopGraceMs);
      kill.unref();
      void this.exited.finally(() => clearTimeout(kill));
    }
    await this.exited;
  }

  /**
   * The group's leader has exited: whatever it left in its group goes too, and output still held open by something
   * outside the group (a daemonised grandchild) is let go after a moment, so 'close' always comes.
   */
  private afterExit(): void {
    this.killGroup('SIGKILL');
    setTimeout(() => {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    }, OUTPUT_DRAIN_MS).unref();
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.healthTimer) clearTimeout(this.healthTimer);
    const watchdog = this.watchdog;
    if (watchdog?.pid && watchdog.exitCode === null && watchdog.signalCode === null)
      signalQuietly(watchdog.pid, 'SIGKILL');
    this.options.onExit({
      code,
      signal,
      everReady: this.everReady,
      unhealthy: this.unhealthy,
      stopped: this.stopping && !this.unhealthy,
      lastStderrLine: this.lastStderrLine,
    });
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (this.pid > 0) signalQuietly(-this.pid, signal);
  }

  private readLines(stream: Readable | null, name: 'stdout' | 'stderr'): void {
    if (!stream) return;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      if (partial.length > MAX_LINE_CHARS) {
        lines.push(partial);
        partial = '';
      }
      for (const line of lines) this.emitLine(name, line);
    });
    stream.on('end', () => {
      if (partial) this.emitLine(name, partial);
    });
  }

  private emitLine(stream: 'stdout' | 'stderr', raw: string): void {
    const line = raw.replace(/\r$/, '').slice(0, MAX_LINE_CHARS);
    if (stream === 'stderr' && line.trim()) this.lastStderrLine = line;
    this.options.onLine(stream, line);
  }

  private scheduleHealthCheck(delayMs: number): void {
    this.healthTimer = setTimeout(() => void this.checkHealth(), delayMs);
    this.healthTimer.unref();
  }

  private async checkHealth(): Promise<void> {
    if (this.stopping || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const healthy = await probeHealth(this.options.port, Math.max(this.options.healthIntervalMs, 1_000));
    if (this.stopping) return;
    if (healthy) {
      this.failedChecks = 0;
      if (!this.everReady) {
        this.everReady = true;
        this.options.onReady();
      }
    } else if (this.everReady && ++this.failedChecks >= UNHEALTHY_AFTER_FAILURES) {
      this.unhealthy = true;
      void this.stop();
      return;
    }
    this.scheduleHealthCheck(
      this.everReady ? this.options.healthIntervalMs : Math.min(STARTUP_POLL_MS, this.options.healthIntervalMs),
    );
  }
}

function spawnWatchdog(group: number, graceMs: number): ChildProcess {
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, String(group), String(Math.max(1, graceMs / 1000))], {
    detached: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {});
  // Neither the watchdog nor its pipe keep the supervising process alive: it exists for when that process is gone.
  watchdog.unref();
  // Typed as a Writable, which has no unref(); the pipe of a child process is a net.Socket.
  if (watchdog.stdin instanceof Socket) watchdog.stdin.unref();
  return watchdog;
}

/** True when `GET /healthz` on the loopback port answered 200 within `timeoutMs`. */
function probeHealth(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}
