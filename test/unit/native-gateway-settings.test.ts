import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nativeEngineSettings } from '../../src/config/native-gateway.js';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-native-ca-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Two throw-away CAs in two files, as an operator would give them. */
function caFile(name: string): { file: string; pem: string } {
  const pem = generateTestCertificates(['127.0.0.1']).caPem.trim();
  const file = path.join(dir, `${name}.pem`);
  fs.writeFileSync(file, `${pem}\n`);
  return { file, pem };
}

describe('the nginx engine trusts the CAs every other outbound request trusts', () => {
  it('takes EXTRA_CA_CERTS and SCANNER_EXTRA_CA_CERTS, each once', () => {
    const extra = caFile('extra');
    const scanner = caFile('scanner');
    const settings = (env: Record<string, string>) => nativeEngineSettings(loadConfig(env), () => {});
    expect(settings({ EXTRA_CA_CERTS: extra.file }).extraCaCertificates).toEqual([extra.pem]);
    expect(settings({ SCANNER_EXTRA_CA_CERTS: scanner.file }).extraCaCertificates).toEqual([scanner.pem]);
    expect(settings({ EXTRA_CA_CERTS: extra.file, SCANNER_EXTRA_CA_CERTS: scanner.file }).extraCaCertificates).toEqual([
      extra.pem,
      scanner.pem,
    ]);
    expect(settings({ EXTRA_CA_CERTS: extra.file, SCANNER_EXTRA_CA_CERTS: extra.file }).extraCaCertificates).toEqual([
      extra.pem,
    ]);
    expect(settings({}).extraCaCertificates).toEqual([]);
  });
});
