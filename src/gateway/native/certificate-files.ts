import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TlsKeyPair } from '../tls.js';
import type { CertificateFiles } from './config.js';

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

/** Where the served certificates come from: all of them, or one hostname's (null: it has none). */
export interface ServedCertificates {
  servedAll(): Promise<Map<string, TlsKeyPair>>;
  served(hostname: string): Promise<TlsKeyPair | null>;
}

/**
 * The custom domains' certificate files, kept in step with the database: every one on a full sync (at start, each
 * minute, after a lost notification), else only the hostnames whose domain or certificate changed, so a change in a
 * fleet of thousands opens one key, not all of them.
 */
export class CertificateMirror {
  private readonly files = new Map<string, CertificateFiles>();
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

  /** Everything is read again on the next sync. */
  resync(): void {
    this.full = true;
  }

  /** The files by hostname, brought up to date. A change noted while this runs is read on the next sync. */
  async sync(): Promise<Map<string, CertificateFiles>> {
    if (!this.source) return this.files;
    const hostnames = [...this.changed];
    this.changed.clear();
    if (this.full) {
      this.full = false;
      const served = await this.source.servedAll();
      this.files.clear();
      for (const [hostname, pair] of served) this.files.set(hostname, await this.store.write(hostname, pair));
      return this.files;
    }
    for (const hostname of hostnames) {
      const pair = await this.source.served(hostname);
      if (pair) this.files.set(hostname, await this.store.write(hostname, pair));
      else this.files.delete(hostname);
    }
    return this.files;
  }
}
