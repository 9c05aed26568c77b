import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TlsKeyPair } from '../tls.js';
import type { CertificateFiles } from './config.js';

/**
 * Certificates and their keys as files nginx reads, in a directory only the service's user can read. Each file is
 * named by the certificate's fingerprint: nginx reads certificate files only when it loads a config, so a renewed
 * certificate must change the config (a new file name) for the reload to happen at all.
 */
export class CertificateFileStore {
  constructor(private readonly directory: string) {}

  /** The files of a certificate and key, written unless a certificate with the same fingerprint already is. */
  async write(name: string, pair: TlsKeyPair): Promise<CertificateFiles> {
    const fingerprint = createHash('sha256').update(pair.certificatePem).digest('hex').slice(0, 16);
    // Hostnames are checked DNS names; anything else still cannot leave the directory.
    const base = path.join(this.directory, `${name.replace(/[^a-z0-9.-]/gi, '_')}.${fingerprint}`);
    const files = { certFile: `${base}.crt`, keyFile: `${base}.key` };
    const present = await fs.access(files.certFile).then(
      () => true,
      () => false,
    );
    if (!present) {
      // The key first: a certificate file is only ever there with its key beside it.
      await fs.writeFile(files.keyFile, pair.privateKeyPem, { mode: 0o600 });
      await fs.writeFile(files.certFile, pair.certificatePem, { mode: 0o600 });
    }
    return files;
  }

  /** Removes every file but those of `kept`: keys of renewed or deleted certificates do not outstay their use. */
  async keepOnly(kept: CertificateFiles[]): Promise<void> {
    const names = new Set(kept.flatMap((files) => [files.certFile, files.keyFile]).map((file) => path.basename(file)));
    for (const entry of await fs.readdir(this.directory)) {
      if (!names.has(entry)) await fs.rm(path.join(this.directory, entry), { force: true });
    }
  }
}
