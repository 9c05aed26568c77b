import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CertificateFileStore, CertificateMirror } from '../../../src/gateway/native/certificate-files.js';

const pair = (tag: string) => ({ certificatePem: `CERT ${tag}`, privateKeyPem: `KEY ${tag}` });
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

/** A mirror over certificates held in memory, counting what it opened. */
function mirrorOf(served: Map<string, string>) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-mirror-'));
  directories.push(directory);
  const opened: string[] = [];
  const source = {
    servedAll: async () => {
      opened.push('*');
      return new Map([...served].map(([hostname, tag]) => [hostname, pair(tag)]));
    },
    served: async (hostname: string) => {
      opened.push(hostname);
      const tag = served.get(hostname);
      return tag ? pair(tag) : null;
    },
    // The tag stands for the certificate's issue time: it changes when the certificate does.
    servedVersions: async () => new Map(served),
  };
  const mirror = new CertificateMirror(new CertificateFileStore(directory), source);
  const contents = async () =>
    Object.fromEntries(
      [...(await mirror.sync())].map(([hostname, files]) => [hostname, fs.readFileSync(files.certFile, 'utf8')]),
    );
  return { mirror, opened, contents };
}

describe("the nginx engine's certificate files", () => {
  it('reads every certificate once, then only the hostnames that changed', async () => {
    const served = new Map([
      ['a.shop.test', 'a1'],
      ['b.shop.test', 'b1'],
    ]);
    const { mirror, opened, contents } = mirrorOf(served);
    expect(await contents()).toEqual({ 'a.shop.test': 'CERT a1\nKEY a1\n', 'b.shop.test': 'CERT b1\nKEY b1\n' });

    served.set('a.shop.test', 'a2');
    served.delete('b.shop.test');
    served.set('c.shop.test', 'c1');
    for (const hostname of ['a.shop.test', 'b.shop.test', 'c.shop.test']) mirror.changedHostname(hostname);
    expect(await contents()).toEqual({ 'a.shop.test': 'CERT a2\nKEY a2\n', 'c.shop.test': 'CERT c1\nKEY c1\n' });
    expect(opened).toEqual(['a.shop.test', 'b.shop.test', 'a.shop.test', 'b.shop.test', 'c.shop.test']);

    await mirror.sync();
    expect(opened).toHaveLength(5);
  });

  it('compares every version on a full sync and opens only the certificates that changed', async () => {
    const served = new Map([
      ['a.shop.test', 'a1'],
      ['b.shop.test', 'b1'],
      ['c.shop.test', 'c1'],
    ]);
    const { mirror, opened, contents } = mirrorOf(served);
    await contents();
    expect(opened).toEqual(['a.shop.test', 'b.shop.test', 'c.shop.test']); // a few: one by one

    mirror.resync();
    await mirror.sync();
    expect(opened).toHaveLength(3); // nothing changed: no key opened

    served.set('b.shop.test', 'b2'); // renewed without a notification reaching this gateway
    served.delete('c.shop.test');
    served.set('d.shop.test', 'd1');
    mirror.resync();
    expect(await contents()).toEqual({
      'a.shop.test': 'CERT a1\nKEY a1\n',
      'b.shop.test': 'CERT b2\nKEY b2\n',
      'd.shop.test': 'CERT d1\nKEY d1\n',
    });
    expect(opened.slice(3)).toEqual(['b.shop.test', 'd.shop.test']);
  });

  it('reads a fleet in one query at start, and after that only what changed', async () => {
    const served = new Map(Array.from({ length: 500 }, (_, i) => [`h${i}.shop.test`, `v${i}`]));
    const { mirror, opened } = mirrorOf(served);
    expect((await mirror.sync()).size).toBe(500);
    expect(opened).toEqual(['*']);
    served.set('h7.shop.test', 'v7-renewed');
    mirror.resync();
    await mirror.sync();
    expect(opened).toEqual(['*', 'h7.shop.test']);
  });
});
