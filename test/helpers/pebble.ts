import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort, waitFor } from './processes.js';

export const PEBBLE_PATH = '/usr/bin/pebble';
/** Debian's `pebble` package; .ci/run installs it, so CI never skips the ACME tests. */
export const pebbleInstalled = fs.existsSync(PEBBLE_PATH);
if (!pebbleInstalled && process.env.CI) throw new Error('CI must have pebble installed (.ci/run installs it)');

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `directory`. */
export function selfSignedLoopbackCertificate(directory: string): { certFile: string; keyFile: string; cert: string } {
  const certFile = path.join(directory, 'cert.pem');
  const keyFile = path.join(directory, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: fs.readFileSync(certFile, 'utf8') };
}

/**
 * Pebble, Let's Encrypt's test CA, on loopback: HTTP-01 validation connects to `httpPort` of the address the test's
 * DNS server gives for the name. Its directory is https with a throw-away certificate (`directoryCa`); the root that
 * signs issued certificates comes from the management port (`issuingRoot()`).
 */
export async function startPebble({
  httpPort,
  dnsPort,
  validitySeconds,
}: {
  httpPort: number;
  dnsPort: number;
  validitySeconds?: number;
}) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-pebble-'));
  const listener = selfSignedLoopbackCertificate(directory);
  const [acmePort, managementPort] = [await freePort(), await freePort()];
  const configFile = path.join(directory, 'pebble.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: listener.certFile,
        privateKey: listener.keyFile,
        httpPort,
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(validitySeconds ? { certificateValidityPeriod: validitySeconds } : {}),
      },
    }),
  );
  const output: string[] = [];
  const child = spawn(PEBBLE_PATH, ['-config', configFile, '-dnsserver', `127.0.0.1:${dnsPort}`], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => output.push(String(chunk)));
  child.stderr.on('data', (chunk) => output.push(String(chunk)));
  const dispatcher = new Agent({ connect: { ca: listener.cert } });
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
  await waitFor(
    async () => (await request(directoryUrl, { dispatcher })).statusCode === 200,
    15_000,
    `pebble (${output.join('')})`,
  );
  return {
    directoryUrl,
    directoryCa: listener.cert,
    output,
    async issuingRoot(): Promise<string> {
      const response = await request(`https://127.0.0.1:${managementPort}/roots/0`, { dispatcher });
      return response.body.text();
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      await dispatcher.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type Pebble = Awaited<ReturnType<typeof startPebble>>;
