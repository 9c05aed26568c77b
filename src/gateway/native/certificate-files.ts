import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TlsKeyPair } from '../tls.js';
import type { CertificateFiles } from './plan.js';

/**
 * Certificates and their keys as files nginx reads at each handshake, in a directory only the service's user can
 * read. One file per hostname holds the certificate and its key (nginx reads both from it), replaced whole by a
 * rename: a handshake never sees a new certificate with an old key, and a renewal changes no config (no reload).
 */
export class CertificateFileStore {
  /** What each file holds now (a hash of it): an unchanged pair is not written again. */
  private readonly written = new Map<string, string>();

  constructor(
    private readonly directory: string,
    /** Who nginx's workers run as, when that is not the service's own user (nginx started as root). */
    private readonly owner: { uid: number; gid: number } | null = null,
  ) {}

  /** The file of a hostname's certificate and key, written when its content changed. */
  async write(name: string, pair: TlsKeyPair): Promise<CertificateFiles> {
    // Hostnames are checked DNS names; anything else still cannot leave the directory.
    const file = path.join(this.directory, `${name.replace(/[^a-z0-9.-]/gi, '_')}.pem`);
    const content = `${pair.certificatePem.trim()}\n${pair.privateKeyPem.trim()}\n`;
    const digest = createHash('sha256').update(content).digest('hex');
    if (this.written.get(file) !== digest) {
      const next = `${file}.next`;
      await fs.writeFile(next, content, { mode: 0o600 });
      if (this.owner) await fs.chown(next, this.owner.uid, this.owner.gid);
      await fs.rename(next, file);
      this.written.set(file, digest);
    }
    return { certFile: file, keyFile: file };
  }

  /** Removes every file but those of `kept`: keys of deleted certificates do not outstay their use. */
  async keepOnly(kept: CertificateFiles[]): Promise<void> {
    const names = new Set(kept.flatMap((files) => [files.certFile, files.keyFile]).map((file) => path.basename(file)));
    for (const entry of await fs.readdir(this.directory)) {
      if (names.has(entry)) continue;
      await fs.rm(path.join(this.directory, entry), { force: true });
      this.written.delete(path.join(this.directory, entry));
    }
  }
}

/**
 * Where the served certificates come from: all of them, or one hostname's (null: it has none), and what each one is
 * (a version that changes with the certificate) without opening any key.
 */
export interface ServedCertificates {
  servedAll(): Promise<Map<string, TlsKeyPair>>;
  served(hostname: string): Promise<TlsKeyPair | null>;
  servedVersions(): Promise<Map<string, string>>;
}

/** More changed certificates than this on a full sync: read them all in one query rather than one by one. */
const READ_ALL_ABOVE = 200;
/** Files written at once when many are (a start with thousands of certificates): each is a write and a rename. */
const WRITES_AT_ONCE = 16;

async function eachAtMost<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * The custom domains' certificate files, kept in step with the database. On a full sync (at start, each minute, after
 * a lost notification) every certificate's version is read, and only those that changed are opened and written (all
 * of them in one query at start); else only the hostnames whose domain or certificate changed are read again. So a
 * fleet of thousands opens its keys once, and then one per change or renewal.
 */
export class CertificateMirror {
  private readonly files = new Map<string, CertificateFiles>();
  /** The version of the certificate each file holds. */
  private readonly versions = new Map<string, string>();
  private readonly changed = new Set<string>();
  private full = true;

  constructor(
    private readonly store: CertificateFileStore,
    private readonly source: ServedCertificates | null,
  ) {}

  /** A domain or certificate changed: its hostname is read again on the next sync. */
  changedHostname(hostname: string): void {
    this.changed.add(hostname);
  }

  /** Everything is compared again on the next sync. */
  resync(): void {
    this.full = true;
  }

  /** The files by hostname, brought up to date. A change noted while this runs is read on the next sync. */
  async sync(): Promise<Map<string, CertificateFiles>> {
    if (!this.source) return this.files;
    const hostnames = new Set(this.changed);
    this.changed.clear();
    if (this.full) {
      this.full = false;
      await this.syncAll(this.source, hostnames);
      return this.files;
    }
    for (const hostname of hostnames) await this.readOne(this.source, hostname, null);
    return this.files;
  }

  private async syncAll(source: ServedCertificates, changed: Set<string>): Promise<void> {
    const versions = await source.servedVersions();
    for (const hostname of this.files.keys()) if (!versions.has(hostname)) this.forget(hostname);
    const stale = [...versions].filter(
      ([hostname, version]) =>
        changed.has(hostname) || !this.files.has(hostname) || this.versions.get(hostname) !== version,
    );
    if (stale.length > READ_ALL_ABOVE) {
      const served = await source.servedAll();
      await eachAtMost(stale, WRITES_AT_ONCE, async ([hostname, version]) => {
        const pair = served.get(hostname);
        if (pair) await this.keep(hostname, pair, version);
        else this.forget(hostname);
      });
      return;
    }
    for (const [hostname, version] of stale) await this.readOne(source, hostname, version);
  }

  private async readOne(source: ServedCertificates, hostname: string, version: string | null): Promise<void> {
    const pair = await source.served(hostname);
    if (pair) await this.keep(hostname, pair, version ?? '');
    else this.forget(hostname);
  }

  /** A certificate read one by one has no version read with it: '' makes the next full sync compare it again. */
  private async keep(hostname: string, pair: TlsKeyPair, version: string): Promise<void> {
    this.files.set(hostname, await this.store.write(hostname, pair));
    this.versions.set(hostname, version);
  }

  private forget(hostname: string): void {
    this.files.delete(hostname);
    this.versions.delete(hostname);
  }
}
