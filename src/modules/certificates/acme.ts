import https from 'node:https';
import type acme from 'acme-client';

type Acme = typeof acme;
let loading: Promise<Acme> | null = null;
/** acme-client (with axios and node-forge) loads when a certificate or an account key is first made, not at start. */
const loadAcme = (): Promise<Acme> =>
  (loading ??= import('acme-client').then((module) => {
    // acme-client would wait out a 429's Retry-After (hours for a CA's rate limit) inside the order, holding the
    // issuing loop; the service retries instead, on its own schedule (AcmeRateLimitedError, exponential backoff).
    // Cast: acme-client adds `acmeSettings` to its axios instance's defaults; its types do not declare it.
    const defaults = module.default.axios.defaults as unknown as { acmeSettings: { retryMaxAttempts: number } };
    defaults.acmeSettings.retryMaxAttempts = 0;
    // acme-client turns a refusal into an Error of its detail alone: the status and Retry-After are read here.
    module.default.axios.interceptors.response.use((response) => {
      const limited = rateLimited(response);
      if (limited) throw limited;
      return response;
    });
    return module.default;
  }));

/** Without a usable Retry-After: an hour. Never sooner than a minute, nor later than a week. */
const RATE_LIMIT_PAUSE_MS = { fallback: 3_600_000, min: 60_000, max: 7 * 86_400_000 };

/**
 * The CA refused an order for its rate limits (RFC 8555 `rateLimited`). `registeredDomain` is the domain its
 * message names (a limit per registered domain), null for a limit on the account; `until` is its Retry-After.
 */
export class AcmeRateLimitedError extends Error {
  constructor(
    message: string,
    readonly until: Date,
    readonly registeredDomain: string | null,
  ) {
    super(message);
  }
}

interface AcmeProblemResponse {
  status?: number;
  headers?: { [name: string]: unknown };
  data?: unknown;
}

/** The CA's answer as a rate-limit refusal, if it is one. */
function rateLimited(response: AcmeProblemResponse): AcmeRateLimitedError | null {
  const problem = (response.data ?? {}) as { type?: unknown; detail?: unknown };
  if (response.status !== 429 && problem.type !== 'urn:ietf:params:acme:error:rateLimited') return null;
  const detail =
    typeof problem.detail === 'string' && problem.detail ? problem.detail : 'The CA refused the order: rate limited.';
  const retryAfter = response.headers?.['retry-after'];
  const until = new Date(Date.now() + pauseMs(typeof retryAfter === 'string' ? retryAfter : undefined));
  const named = /"((?:[a-z0-9-]+\.)+[a-z0-9-]+)"/i.exec(detail)?.[1]?.toLowerCase() ?? null;
  return new AcmeRateLimitedError(detail, until, named);
}

/** Retry-After in seconds or as an HTTP date, bounded. */
function pauseMs(retryAfter: string | undefined): number {
  const seconds = Number(retryAfter);
  const date = retryAfter ? Date.parse(retryAfter) : Number.NaN;
  const wanted = Number.isFinite(seconds)
    ? seconds * 1000
    : Number.isNaN(date)
      ? RATE_LIMIT_PAUSE_MS.fallback
      : date - Date.now();
  return Math.min(RATE_LIMIT_PAUSE_MS.max, Math.max(RATE_LIMIT_PAUSE_MS.min, wanted));
}

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
