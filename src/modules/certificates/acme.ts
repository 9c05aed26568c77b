import https from 'node:https';
import type acme from 'acme-client';

type Acme = typeof acme;
let loading: Promise<Acme> | null = null;
/** acme-client (with axios and node-forge) loads when a certificate or an account key is first made, not at start. */
const loadAcme = (): Promise<Acme> => (loading ??= import('acme-client').then((module) => module.default));

export interface IssuedCertificate {
  /** Leaf first, then the intermediates, as the CA sent them. */
  certificatePem: string;
  privateKeyPem: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
}

export interface ChallengeStore {
  put(token: string, keyAuthorization: string, hostname: string): Promise<void>;
  remove(token: string): Promise<void>;
}

let trustedCa: string | null = null;

/**
 * acme-client talks through one shared axios instance: extra CA certificates (a test CA such as Pebble's) are
 * set on it once per process. Production leaves the list empty and Node's own roots apply.
 */
function trustDirectoryCa(acme: Acme, caCertificates: string[]) {
  if (caCertificates.length === 0) return;
  const bundle = caCertificates.join('\n');
  if (trustedCa === bundle) return;
  trustedCa = bundle;
  acme.axios.defaults.httpsAgent = new https.Agent({ ca: bundle, keepAlive: false });
}

/**
 * Finds the account of the key, when it exists, so that auto() skips registering it: registering an existing
 * account makes acme-client send the registration again as an update, which a CA may refuse as an update that
 * changes nothing (Pebble does, failing every order after the first, renewals included).
 */
async function useExistingAccount(client: acme.Client): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
  } catch (error) {
    // The CA answered that this key has no account yet: auto() registers it. A transport failure is the order's.
    if ((error as { isAxiosError?: boolean }).isAxiosError) throw error;
  }
}

/** Orders certificates from one ACME directory (RFC 8555) with HTTP-01, the answers kept in `challenges`. */
export class AcmeIssuer {
  constructor(
    private readonly settings: {
      directoryUrl: string;
      email: string | null;
      caCertificates: string[];
      accountKeyPem: () => Promise<string>;
    },
    private readonly challenges: ChallengeStore,
  ) {}

  static async createAccountKey(): Promise<string> {
    const acme = await loadAcme();
    return (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
  }

  async issue(hostname: string): Promise<IssuedCertificate> {
    const acme = await loadAcme();
    trustDirectoryCa(acme, this.settings.caCertificates);
    const client = new acme.Client({
      directoryUrl: this.settings.directoryUrl,
      accountKey: await this.settings.accountKeyPem(),
      backoffAttempts: 10,
      backoffMin: 1000,
      backoffMax: 10_000,
    });
    await useExistingAccount(client);
    const privateKey = await acme.crypto.createPrivateEcdsaKey('P-256');
    const [, csr] = await acme.crypto.createCsr({ commonName: hostname, altNames: [hostname] }, privateKey);
    const certificatePem = await client.auto({
      csr,
      email: this.settings.email ?? undefined,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // acme-client's own pre-check fetches the challenge URL through public DNS; the CA's validation is the one that counts.
      skipChallengeVerification: true,
      challengeCreateFn: (_authz, challenge, keyAuthorization) =>
        this.challenges.put(challenge.token, keyAuthorization, hostname),
      challengeRemoveFn: (_authz, challenge) => this.challenges.remove(challenge.token),
    });
    const info = acme.crypto.readCertificateInfo(certificatePem);
    return {
      certificatePem,
      privateKeyPem: privateKey.toString(),
      issuer: info.issuer.commonName,
      notBefore: info.notBefore,
      notAfter: info.notAfter,
    };
  }
}
