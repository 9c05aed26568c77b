import { webcrypto } from 'node:crypto';
import pg from 'pg';
import { SecretBox } from '../src/lib/secrets.js';
import { KEY_PURPOSE } from '../src/modules/certificates/service.js';
import { sealPurpose } from '../src/modules/containers/tagging.js';

/** Custom domains of the fleet: `shop<i>.fleet.test`, each with its own certificate from one test CA. */
export const fleetHostname = (index: number) => `shop${index}.fleet.test`;

export interface FleetCa {
  /** PEM of the CA the bench's clients trust. */
  certificatePem: string;
  /** A leaf certificate for `hostname` and the one key all leaves share (ECDSA P-256: signing is the cost). */
  leaf(hostname: string): Promise<string>;
  leafKeyPem: string;
}

/** A throw-away CA for the fleet's certificates (the gateway trusts nothing new: only the bench's clients do). */
export async function fleetCa(): Promise<FleetCa> {
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const caKeys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Tagport fleet bench CA',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 7 * 86_400_000),
    signingAlgorithm: algorithm,
    keys: caKeys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)).toString('base64');
  let serial = 1;
  return {
    certificatePem: ca.toString('pem'),
    leafKeyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
    leaf: async (hostname) =>
      (
        await x509.X509CertificateGenerator.create({
          serialNumber: (++serial).toString(16).padStart(4, '0'),
          subject: `CN=${hostname}`,
          issuer: ca.subject,
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 7 * 86_400_000),
          signingAlgorithm: algorithm,
          publicKey: leafKeys.publicKey,
          signingKey: caKeys.privateKey,
          extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: hostname }])],
        })
      ).toString('pem'),
  };
}

/**
 * `size` containers and as many active custom domains with issued certificates, copied in SQL from one container and
 * one domain made through the API (so every column holds what the service writes), half the containers with a base
 * path in their upstream URL. Keys are sealed with the service's own SecretBox, as the certificate module stores them.
 */
export async function seedFleet(
  url: string,
  template: { containerId: string; domainId: string; config: string },
  { size, upstream, secretsKey, ca }: { size: number; upstream: string; secretsKey: Buffer; ca: FleetCa },
): Promise<string[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const copied = await client.query<{ id: string }>(
      `insert into containers
       select (jsonb_populate_record(null::containers, to_jsonb(c) || jsonb_build_object(
         'id', 'ctr_' || lpad(i::text, 26, '0'),
         'name', 'Fleet ' || i,
         'default_hostname', 'fleet' || i || substring(c.default_hostname from position('.' in c.default_hostname)),
         'upstream_url', $2::text || case when i % 2 = 0 then 'base/' || i || '/' else '' end))).*
       from containers c, generate_series(1, $3::int) i where c.id = $1
       returning id`,
      [template.containerId, upstream, size],
    );
    await client.query(
      `insert into domains
       select (jsonb_populate_record(null::domains, to_jsonb(d) || jsonb_build_object(
         'id', 'dom_' || lpad(i::text, 26, '0'),
         'hostname', 'shop' || i || '.fleet.test',
         'container_id', 'ctr_' || lpad(i::text, 26, '0'),
         'status', 'pending',
         'verification_token', md5(i::text)))).*
       from domains d, generate_series(1, $2::int) i where d.id = $1`,
      [template.domainId, size],
    );
    await sealConfigs(
      client,
      copied.rows.map((row) => row.id),
      secretsKey,
      template.config,
    );
    await sealCertificates(client, size, secretsKey, ca);
    // Active only once their certificates are in: the worker queues an order for an active domain without one.
    await client.query(`update domains set status = 'active' where hostname like 'shop%.fleet.test'`);
    await client.query('vacuum analyze');
    return copied.rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

/** Each copy's container config sealed for its own id, as the service seals it (the purpose names the container). */
async function sealConfigs(client: pg.Client, ids: string[], secretsKey: Buffer, config: string) {
  const box = new SecretBox(secretsKey);
  for (let start = 0; start < ids.length; start += 1000) {
    const sealed = ids.slice(start, start + 1000).map((id) => [id, box.seal(config, sealPurpose(id))]);
    await client.query(
      `update containers c set config = r->>1 from jsonb_array_elements($1::jsonb) r where c.id = r->>0`,
      [JSON.stringify(sealed)],
    );
  }
}

async function sealCertificates(client: pg.Client, size: number, secretsKey: Buffer, ca: FleetCa) {
  const box = new SecretBox(secretsKey);
  const batch = 500;
  for (let start = 1; start <= size; start += batch) {
    const rows: unknown[] = [];
    for (let i = start; i < Math.min(size + 1, start + batch); i++) {
      const domainId = `dom_${String(i).padStart(26, '0')}`;
      const pem = `${await ca.leaf(fleetHostname(i))}\n${ca.certificatePem}`;
      rows.push([domainId, fleetHostname(i), pem, box.seal(ca.leafKeyPem, KEY_PURPOSE(domainId))]);
    }
    await client.query(
      `insert into domain_certificates (domain_id, hostname, status, issuer, not_before, not_after, certificate_pem,
         private_key_sealed, next_attempt_at)
       select r->>0, r->>1, 'issued', 'Tagport fleet bench CA', now() - interval '1 minute', now() + interval '7 days',
         r->>2, r->>3, now() + interval '6 days'
       from jsonb_array_elements($1::jsonb) r`,
      [JSON.stringify(rows)],
    );
  }
}
