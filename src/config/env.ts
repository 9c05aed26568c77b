import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';

/** Readers of single environment variables for src/config.ts, each failing with a ConfigError that names the variable. */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

export function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** A TCP port (0: any free one). */
export function port(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback);
  if (value > 65_535) throw new ConfigError(`${name} must be a port from 0 to 65535, got "${env[name]}"`);
  return value;
}

/** A directory that must exist when set; null when unset. */
export function existingDirectory(env: Env, name: string): string | null {
  const directory = optional(env, name);
  if (directory === null) return null;
  let isDirectory: boolean;
  try {
    isDirectory = fs.statSync(directory).isDirectory();
  } catch {
    throw new ConfigError(`${name}: the directory ${directory} does not exist; create it or unset ${name}`);
  }
  if (!isDirectory) throw new ConfigError(`${name}: ${directory} is not a directory`);
  return directory;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function optional(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

/** An http(s) origin (scheme, host, port; no path), as given or the default. */
export function origin(env: Env, name: string, fallback: string): string {
  const raw = optional(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) origin such as ${fallback}`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname.length > 1 || url.search)
    throw new ConfigError(`${name} must be an http(s) origin such as ${fallback}, without a path`);
  return url.origin;
}

export function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0 && value < 1)) throw new ConfigError(`${name} must be a number between 0 and 1, got "${raw}"`);
  return value;
}

/** A PEM file named by `name`, read once at start; for test CAs (Pebble's directory certificate). */
export function pemFile(env: Env, name: string): string[] {
  const file = optional(env, name);
  if (!file) return [];
  try {
    return [fs.readFileSync(file, 'utf8')];
  } catch {
    throw new ConfigError(`${name}: cannot read the PEM file ${file}`);
  }
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_CHOICES =
  'Set TRUST_PROXY to the addresses or CIDR ranges of your proxies, e.g. TRUST_PROXY=127.0.0.1 for a proxy on the same host or TRUST_PROXY=10.0.0.0/8,fd00::/8 ' +
  '(loopback, linklocal and uniquelocal name the usual private ranges), or leave it unset when clients connect directly.';

function isAddressOrRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * TRUST_PROXY: which peers may set the client address with X-Forwarded-For. Only a list of proxy addresses
 * is accepted: `true` would let every client pick its own address (and escape the per-IP limits), and a hop
 * count cannot tell a proxy from a client that connects directly (Fastify 5 ignores hop counts for that reason).
 */
export function trustProxy(env: Env): string[] | false {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (raw === '' || /^(false|no|off|0)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw} would believe X-Forwarded-For from any client, so anyone could pick their own address and escape the per-IP limits. ${TRUST_PROXY_CHOICES}`,
    );
  }
  if (/^\d+$/.test(raw)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw}: a hop count cannot tell a proxy from a client that connects directly and sends its own X-Forwarded-For. ${TRUST_PROXY_CHOICES}`,
    );
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.filter((entry) => !isAddressOrRange(entry));
  if (invalid.length > 0)
    throw new ConfigError(
      `TRUST_PROXY has entries that are not IP addresses or CIDR ranges: ${invalid.join(', ')}. ${TRUST_PROXY_CHOICES}`,
    );
  return entries.length > 0 ? entries : false;
}

/** Certificates of a PEM file: each certificate's PEM and the base64 SHA-256 of its SubjectPublicKeyInfo. */
export interface PemCertificates {
  pems: string[];
  spkiSha256: string[];
}

/** The certificates of the PEM file a variable names (see pemFile), each with its SPKI hash; null when unset. */
export function pemCertificates(env: Env, name: string): PemCertificates | null {
  const [text] = pemFile(env, name);
  if (text === undefined) return null;
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length === 0) throw new ConfigError(`${name}: the file holds no PEM certificate`);
  const spkiSha256 = pems.map((pem, index) => {
    try {
      const spki = new crypto.X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
      return crypto.createHash('sha256').update(spki).digest('base64');
    } catch {
      throw new ConfigError(`${name}: certificate ${index + 1} of the file is not a valid X.509 certificate`);
    }
  });
  return { pems, spkiSha256 };
}

/** One of `values` (the first when unset); anything else is refused at start. */
export function oneOf<const T extends readonly string[]>(env: Env, name: string, values: T): T[number] {
  const value = env[name];
  if (!value) return values[0];
  if (!values.includes(value)) throw new ConfigError(`${name} must be one of ${values.join(', ')}`);
  return value as T[number];
}
