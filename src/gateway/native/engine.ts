import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '../../config/env.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { OutboundClient } from '../../lib/outbound.js';
import { freeLoopbackPort } from '../../lib/ports.js';
import type { ContainerTraffic } from '../../modules/containers/traffic.js';
import type { Gateway } from '../server.js';
import { selfSignedWildcard, type TlsKeyPair } from '../tls.js';
import { CertificateFileStore, CertificateMirror, type ServedCertificates } from './certificate-files.js';
import { renderNginxConfig } from './config.js';
import type { CertificateFiles } from './plan.js';
import { MeterLogReader, type NativeRequest } from './meter-log.js';
import { servingWorkers, waitForPort, workerOwner } from './nginx-process.js';
import { NativeRouteTable } from './routes.js';

const run = promisify(execFile);
/** Changes (a container stopped, a domain added) are written in one reload when they come in a burst. */
const RELOAD_DEBOUNCE_MS = 50;
/** Upstream names are resolved when the config is written: written again this often, reloaded if it changed. */
const REFRESH_MS = 60_000;

export interface NativeEngineSettings {
  nginxPath: string;
  workers: number;
  host: string;
  httpPort: number;
  tlsPort: number | null;
  baseDomain: string;
  certFile: string | null;
  keyFile: string | null;
  /** Trusted CAs for https upstreams: the system bundle, plus any extra PEMs (tests' CA). */
  caFile: string;
  extraCaCertificates: string[];
  upstreamTimeoutMs: number;
  /** The token of the platform's own requests (platformRequestToken): what they say of themselves is passed on. */
  platformToken: string;
  /** The port of the Node gateway's internal listener nginx hands requests to (on 127.0.0.1); 0: a free one. */
  internalPort: number;
  /** The most containers nginx proxies itself (the busiest); the others go through Node. */
  nativeLimit: number;
  /** Where the run directory (config, logs, certificate keys) is made; default the system's temp directory. */
  runParent?: string;
  onError: (error: unknown) => void;
}

export interface NativeEngineDependencies {
  gateway: Gateway;
  traffic: ContainerTraffic;
  outbound: OutboundClient;
  invalidations: InvalidationBus;
  /** Custom domains' certificates by hostname, keys opened; null without ACME. */
  certificates: ServedCertificates | null;
}

/**
 * The native data plane: nginx, run and configured by Tagport, proxies running `upstream` containers itself (routes
 * in maps by hostname, keep-alive pools per upstream, TLS by SNI) and hands everything else to the Node
 * gateway's internal listener: unknown hosts, stopped containers, the built-in runtime, the custom loader,
 * `/healthz`, ACME challenges and the redirect to https, power-ups, and targets that need normalising. nginx
 * logs what it proxied to a meter log the gateway reads on each flush, so usage and request logs are the same.
 */
export class NginxEngine {
  private child: ChildProcess | null = null;
  private runDir = '';
  private written = '';
  /** The config nginx runs: what a refused one is replaced with on disk. */
  private lastGood = '';
  private renderedAt = 0;
  private fallback = '';
  private readonly secret = randomBytes(24).toString('base64url');
  private defaultCertificate: CertificateFiles | null = null;
  private selfSigned: TlsKeyPair | null = null;
  private certificateFiles: CertificateFileStore | null = null;
  private certificates: CertificateMirror | null = null;
  /** The certificate files the config written last names: kept, every other one removed. */
  private usedCertificates: CertificateFiles[] = [];
  private caFile = '';
  private reloadTimer: NodeJS.Timeout | null = null;
  private origins = new Map<string, string>();
  private readonly routeTable: NativeRouteTable;
  private meterLog: MeterLogReader | null = null;
  private exited = false;
  private readonly unread: NativeRequest[] = [];
  private reloading: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: NativeEngineDependencies,
    private readonly settings: NativeEngineSettings,
  ) {
    this.routeTable = new NativeRouteTable(deps, settings.nativeLimit);
  }

  /** The TLS port nginx serves (where plain http redirects to); null without TLS or before start. */
  get tlsPort(): number | null {
    return this.running ? this.tlsPortInUse : null;
  }

  get running(): boolean {
    return this.child !== null && !this.exited;
  }

  private httpPort = 0;
  private tlsPortInUse: number | null = null;

  /** Starts nginx on the gateway's ports (a free one for port 0); resolves once they accept connections. */
  async start(): Promise<{ http: string; https: string | null }> {
    this.httpPort = this.settings.httpPort || (await freeLoopbackPort());
    this.tlsPortInUse = this.settings.tlsPort === null ? null : this.settings.tlsPort || (await freeLoopbackPort());
    await fs.access(this.settings.nginxPath, fs.constants.X_OK).catch(() => {
      throw new ConfigError(`GATEWAY_ENGINE=nginx needs nginx at ${this.settings.nginxPath} (set GATEWAY_NGINX)`);
    });
    this.runDir = await this.makeRunDirectory();
    // Before the first config is written: a container that starts meanwhile is then in the next one.
    this.deps.invalidations.subscribe(({ kind, id }) => {
      if (kind === 'domain' || kind === 'certificate') this.certificates?.changedHostname(id);
      if (kind === 'container') this.routeTable.containerChanged(id);
      if (kind === 'domain') this.routeTable.domainChanged(id);
      if (kind === 'all') {
        this.certificates?.resync();
        this.routeTable.resync();
      }
      if (kind === 'container' || kind === 'domain' || kind === 'certificate' || kind === 'all') this.scheduleReload();
    });
    this.caFile = await this.writeCaBundle();
    this.defaultCertificate = this.tlsPortInUse === null ? null : await this.writeDefaultCertificate();
    const meterLogPath = path.join(this.runDir, 'meter.log');
    this.meterLog = new MeterLogReader(meterLogPath, () => this.child?.kill('SIGUSR1'));
    this.fallback = await this.listenInternal();
    await this.refresh(); // through the reload queue, so a change seen meanwhile is never overwritten by this one
    this.child = spawn(this.settings.nginxPath, ['-p', this.runDir, '-c', this.configPath, '-e', this.errorLogPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child.on('error', (error) => this.settings.onError(error));
    this.child.stderr?.on('data', (chunk: Buffer) =>
      this.settings.onError(new Error(`nginx: ${chunk.toString().trim()}`)),
    );
    this.child.once('exit', (code, signal) => {
      this.exited = true;
      if (this.runDir) this.settings.onError(new Error(`nginx exited (code ${code}, signal ${signal})`));
    });
    const nginx = {
      pid: this.child.pid,
      pidFile: path.join(this.runDir, 'nginx.pid'),
      exited: () => this.exited,
      errorLog: () => this.errorLog(),
    };
    await waitForPort(this.settings.host, this.httpPort, nginx);
    if (this.tlsPortInUse !== null) await waitForPort(this.settings.host, this.tlsPortInUse, nginx);
    const host = this.settings.host.includes(':') ? `[${this.settings.host}]` : this.settings.host;
    return {
      http: `http://${host}:${this.httpPort}`,
      https: this.tlsPortInUse === null ? null : `https://${host}:${this.tlsPortInUse}`,
    };
  }

  /** The run directory (config, logs, certificate keys), made in GATEWAY_NGINX_DIR or the system's temp directory. */
  private async makeRunDirectory(): Promise<string> {
    const parent = this.settings.runParent ?? os.tmpdir();
    const runDir = await fs.mkdtemp(path.join(parent, 'tagport-nginx-')).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        `GATEWAY_NGINX_DIR: cannot make the nginx engine's run directory in ${parent} (${error.code}); set it to a directory the service can write to`,
      );
    });
    await fs.chmod(runDir, 0o711); // nginx's workers (nobody, when started as root) use the temp dirs in it
    // nginx's workers read certificates at the handshake: when started as root, they run as nobody.
    const workers = process.getuid?.() === 0 ? await workerOwner() : null;
    const secrets = path.join(runDir, 'secrets');
    await fs.mkdir(secrets, { mode: 0o700 });
    if (workers) await fs.chown(secrets, workers.uid, workers.gid);
    this.certificateFiles = new CertificateFileStore(secrets, workers);
    this.certificates = new CertificateMirror(this.certificateFiles, this.deps.certificates);
    await fs.mkdir(path.join(runDir, 'temp'), { mode: 0o711 });
    return runDir;
  }

  /** The Node gateway's listener for what nginx hands on, on GATEWAY_NGINX_INTERNAL_PORT (0: any free port). */
  private async listenInternal(): Promise<string> {
    const { internalPort } = this.settings;
    const source = { running: () => this.running, read: () => this.readMeterLog() };
    return this.deps.gateway.listenInternal(this.secret, source, internalPort).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') throw error;
      throw new ConfigError(
        `GATEWAY_NGINX_INTERNAL_PORT: port ${internalPort} on 127.0.0.1 is in use; choose a free one, or 0 for any`,
      );
    });
  }

  async stop(): Promise<void> {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    const child = this.child;
    const runDir = this.runDir;
    this.runDir = '';
    if (child && !this.exited) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGQUIT');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    // nginx wrote its last lines as it quit: kept for the gateway's final flush, as the directory goes.
    this.unread.push(...((await this.meterLog?.read().catch(() => [])) ?? []));
    if (runDir) await fs.rm(runDir, { recursive: true, force: true });
  }

  /** Writes the config again from the database and reloads nginx when it changed; one reload at a time. */
  refresh(): Promise<void> {
    const reload = this.reloading.then(() => this.reloadIfChanged());
    this.reloading = reload.catch(() => {});
    return reload;
  }

  /** Resolves once every change seen so far is what nginx serves (the pending reload done, old workers gone). */
  async settled(): Promise<void> {
    while (this.reloadTimer) await new Promise((resolve) => setTimeout(resolve, RELOAD_DEBOUNCE_MS / 4));
    await this.reloading;
  }

  private async reloadIfChanged() {
    if (!this.runDir) return; // stopped: a refresh queued before the stop has nothing left to write to
    const text = await this.render();
    this.renderedAt = Date.now();
    if (text === this.written || !this.runDir) return;
    if (this.child) await this.reload(text);
    else await this.writeCheckedConfig(text); // not started yet: nginx reads this config when it starts
    await this.certificateFiles?.keepOnly(this.usedCertificates);
  }

  /**
   * Replaces the running config. nginx checks a config itself when it reloads, keeps the running one when it refuses
   * the new one and says why in the error log; a separate `nginx -t` would parse it a second time (~0.3 s per 1,000
   * containers). Resolves once no old worker accepts connections (a new one could otherwise still reach the old
   * config); a refused config is put back on disk as it was, so a restart starts the one running, and reported.
   */
  private async reload(text: string) {
    const child = this.child!;
    const errorLogAt = (await fs.stat(this.errorLogPath).catch(() => null))?.size ?? 0;
    await this.writeConfig(text);
    const before = new Set(servingWorkers(child.pid));
    child.kill('SIGHUP');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && servingWorkers(child.pid).some((pid) => before.has(pid))) {
      const refusal = await this.errorLogSince(errorLogAt, '[emerg]');
      if (refusal) {
        await this.writeConfig(this.lastGood);
        throw new Error(`nginx refused the generated config: ${refusal}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.lastGood = text;
  }

  private scheduleReload() {
    if (this.reloadTimer || !this.runDir) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null;
      this.refresh().catch(this.settings.onError);
    }, RELOAD_DEBOUNCE_MS);
  }

  /** The requests nginx proxied since the last read, with the upstream origin each went to (for the request logs). */
  private async readMeterLog() {
    if (Date.now() - this.renderedAt > REFRESH_MS) {
      this.certificates?.resync();
      this.routeTable.resync();
      this.scheduleReload();
    }
    const requests = this.unread.splice(0);
    if (this.runDir) requests.push(...((await this.meterLog?.read()) ?? []));
    return requests.map((request) => ({ ...request, upstream: this.origins.get(request.containerId) ?? null }));
  }

  private get configPath() {
    return path.join(this.runDir, 'nginx.conf');
  }

  private get errorLogPath() {
    return path.join(this.runDir, 'error.log');
  }

  /**
   * Writes the config nginx reads, replaced by a rename so nginx never reads half of one; `check` may refuse the new
   * file before it replaces the old.
   */
  private async writeConfig(text: string, check?: (file: string, runDir: string) => Promise<void>) {
    const runDir = this.runDir;
    if (!runDir) return; // stopped meanwhile: its run directory is gone (a relative path would write to the cwd)
    const next = path.join(runDir, 'nginx.next.conf');
    await fs.writeFile(next, text, { mode: 0o600 });
    await check?.(next, runDir);
    await fs.rename(next, path.join(runDir, 'nginx.conf'));
    this.written = text;
    this.renderedAt = Date.now();
  }

  /** The first config, tested with `nginx -t` before nginx starts with it: a bad one is reported, not used. */
  private async writeCheckedConfig(text: string) {
    await this.writeConfig(text, async (next, runDir) => {
      try {
        await run(this.settings.nginxPath, [
          '-t',
          '-q',
          '-p',
          runDir,
          '-c',
          next,
          '-e',
          path.join(runDir, 'error.log'),
        ]);
      } catch (error) {
        throw new Error(`nginx refused the generated config: ${(error as { stderr?: string }).stderr ?? error}`);
      }
    });
    this.lastGood = text;
  }

  /** The first line of the error log after `offset` that contains `level` (`[emerg]`), if any. */
  private async errorLogSince(offset: number, level: string): Promise<string | null> {
    const file = await fs.open(this.errorLogPath, 'r').catch(() => null);
    if (!file) return null;
    try {
      const { size } = await file.stat();
      if (size <= offset) return null;
      const buffer = Buffer.alloc(Math.min(size - offset, 64 * 1024));
      await file.read(buffer, 0, buffer.length, offset);
      return (
        buffer
          .toString('utf8')
          .split('\n')
          .find((line) => line.includes(level)) ?? null
      );
    } finally {
      await file.close();
    }
  }

  private async render(): Promise<string> {
    const certificates = await this.certificatesByHostname();
    const routes = await this.routeTable.routes();
    this.origins = new Map(routes.map(({ route, origin }) => [route.containerId, origin]));
    if (this.tlsPortInUse !== null) this.defaultCertificate = await this.writeDefaultCertificate();
    this.usedCertificates = [...(this.defaultCertificate ? [this.defaultCertificate] : []), ...certificates.values()];
    return renderNginxConfig({
      runDir: this.runDir,
      workers: this.settings.workers,
      host: this.settings.host,
      httpPort: this.httpPort,
      tlsPort: this.tlsPortInUse,
      defaultCertificate: this.defaultCertificate,
      fallback: this.fallback,
      frontSecret: this.secret,
      platformToken: this.settings.platformToken,
      meterLog: path.join(this.runDir, 'meter.log'),
      caFile: this.caFile,
      upstreamTimeoutMs: this.settings.upstreamTimeoutMs,
      routes: routes.map(({ route }) => route),
      certificates: [...certificates].map(([name, certificate]) => ({ name, certificate })),
    });
  }

  /** Custom domains' certificates by hostname, as files nginx reads; none without a TLS port. */
  private async certificatesByHostname(): Promise<Map<string, CertificateFiles>> {
    if (this.tlsPortInUse === null || !this.certificates) return new Map();
    return this.certificates.sync();
  }

  /**
   * The default certificate as a file nginx's workers can read: the operator's files (read again on each refresh, so
   * a replaced wildcard certificate is served without a restart), or one made for development at start.
   */
  private async writeDefaultCertificate(): Promise<CertificateFiles> {
    const { certFile, keyFile, baseDomain } = this.settings;
    if (certFile && keyFile) {
      const pair = {
        certificatePem: await fs.readFile(certFile, 'utf8'),
        privateKeyPem: await fs.readFile(keyFile, 'utf8'),
      };
      return this.certificateFiles!.write(`_default.${baseDomain}`, pair);
    }
    this.selfSigned ??= await selfSignedWildcard(baseDomain);
    return this.certificateFiles!.write(`_default.${baseDomain}`, this.selfSigned);
  }

  private async writeCaBundle(): Promise<string> {
    const system = await fs.readFile(this.settings.caFile, 'utf8').catch(() => '');
    const file = path.join(this.runDir, 'upstream-ca.pem');
    await fs.writeFile(file, [system, ...this.settings.extraCaCertificates].join('\n'));
    return file;
  }

  private async errorLog(): Promise<string> {
    return (await fs.readFile(this.errorLogPath, 'utf8').catch(() => '')).slice(-2000);
  }
}
