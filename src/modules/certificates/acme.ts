import https from 'node:https';
import type acme from 'acme-client';
import { certId, parseRenewalInfo, RENEWAL_INFO_RECHECK_MS, renewalInfoRecheckMs, type RenewalWindow } from './ari.js';

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
      const refused = rateLimited(response) ?? alreadyReplaced(response);
      if (refused) throw refused;
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

/** The CA refused an order's `replaces`: that certificate was replaced already (RFC 9773 §5, `alreadyReplaced`). */
export class AcmeAlreadyReplacedError extends Error {}

function alreadyReplaced(response: AcmeProblemResponse): AcmeAlreadyReplacedError | null {
  const problem = (response.data ?? {}) as { type?: unknown; detail?: unknown };
  if (problem.type !== 'urn:ietf:params:acme:error:alreadyReplaced') return null;
  return new AcmeAlreadyReplacedError(typeof problem.detail === 'string' ? problem.detail : 'Already replaced.');
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
 * Finds the account of the key, and registers it only when the CA has none: registering an existing account makes
 * acme-client send the registration again as an update, which a CA may refuse as an update that changes nothing
 * (Pebble does, failing every order after the first, renewals included).
 */
async function useAccount(client: acme.Client, email: string | null): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
  } catch (error) {
    // The CA answered that this key has no account yet: it is registered below. A transport failure is the order's.
    if ((error as { isAxiosError?: boolean }).isAxiosError) throw error;
  }
  // Found: acme-client knows its URL (even when the update it sends after finding it was refused).
  if (hasAccountUrl(client)) return;
  await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
}

function hasAccountUrl(client: acme.Client): boolean {
  try {
    client.getAccountUrl();
    return true;
  } catch {
    return false;
  }
}

/** What the CA says of a certificate's renewal (RFC 9773), and when to ask again (null: the CA offers no ARI). */
export type RenewalInfoAnswer =
  | { kind: 'unsupported' }
  | { kind: 'failed'; reason: string; recheckAt: Date }
  | ({ kind: 'window'; recheckAt: Date } & RenewalWindow);

/** The directory is read again after this long: a CA that starts or stops offering renewalInfo is noticed. */
const DIRECTORY_MAX_AGE_MS = 3_600_000;
const RENEWAL_INFO_TIMEOUT_MS = 10_000;

/** Orders certificates from one ACME directory (RFC 8555) with HTTP-01, the answers kept in `challenges`. */
export class AcmeIssuer {
  private directory: { renewalInfo: string | null; readAt: number } | null = null;

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

  /**
   * Orders a certificate for `hostname`. `replacing` is the certificate it renews: when the CA offers ARI, the order
   * names it (`replaces`, RFC 9773 §5), which is how a CA knows a renewal in its suggested window (Let's Encrypt
   * exempts those from its rate limits).
   */
  async issue(hostname: string, replacing: string | null = null): Promise<IssuedCertificate> {
    const acme = await loadAcme();
    trustDirectoryCa(acme, this.settings.caCertificates);
    const client = new acme.Client({
      directoryUrl: this.settings.directoryUrl,
      accountKey: await this.settings.accountKeyPem(),
      backoffAttempts: 10,
      backoffMin: 1000,
      backoffMax: 10_000,
    });
    await useAccount(client, this.settings.email);
    const privateKey = await acme.crypto.createPrivateEcdsaKey('P-256');
    const [, csr] = await acme.crypto.createCsr({ commonName: hostname, altNames: [hostname] }, privateKey);
    const replaces = replacing ? await this.replacesValue(acme, replacing) : null;
    const order = await newOrder(client, hostname, replaces);
    for (const authorization of await client.getAuthorizations(order))
      await this.authorize(client, authorization, hostname);
    const certificatePem = await client.getCertificate(await client.finalizeOrder(order, csr));
    const info = acme.crypto.readCertificateInfo(certificatePem);
    return {
      certificatePem,
      privateKeyPem: privateKey.toString(),
      issuer: info.issuer.commonName,
      notBefore: info.notBefore,
      notAfter: info.notAfter,
    };
  }

  /** Answers the HTTP-01 challenge of one authorization, and gives up the authorization when it could not. */
  private async authorize(client: acme.Client, authorization: acme.Authorization, hostname: string): Promise<void> {
    if (authorization.status === 'valid') return;
    const challenge = authorization.challenges.find((offered) => offered.type === 'http-01');
    if (!challenge) throw new Error(`The CA offered no HTTP-01 challenge for ${hostname}.`);
    const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
    let completed = false;
    try {
      await this.challenges.put(challenge.token, keyAuthorization, hostname);
      try {
        await client.completeChallenge(challenge);
        completed = true;
        await client.waitForValidStatus(challenge);
      } finally {
        await this.challenges.remove(challenge.token).catch(() => {});
      }
    } catch (error) {
      // A pending authorization left behind would be reused; one the CA is validating is its to finish.
      if (!completed) await client.deactivateAuthorization(authorization).catch(() => {});
      throw error;
    }
  }

  /** The old certificate's certID, only when the CA offers ARI (a CA without it may refuse an unknown field). */
  private async replacesValue(acme: Acme, certificatePem: string): Promise<string | null> {
    try {
      return (await this.renewalInfoUrl(acme)) ? certId(certificatePem) : null;
    } catch {
      return null;
    }
  }

  /**
   * The CA's suggested renewal window for a certificate (`GET <renewalInfo>/<certID>`, RFC 9773 §4), with the time to
   * ask again from its Retry-After. Never throws: a CA without ARI is `unsupported`, anything else that goes wrong
   * (unreachable, an error status, a malformed window) is `failed`.
   */
  async renewalInfo(certificatePem: string): Promise<RenewalInfoAnswer> {
    const failed = (reason: string, retryAfter?: string): RenewalInfoAnswer => ({
      kind: 'failed',
      reason,
      recheckAt: new Date(Date.now() + renewalInfoRecheckMs(retryAfter, RENEWAL_INFO_RECHECK_MS.failed)),
    });
    try {
      const acme = await loadAcme();
      trustDirectoryCa(acme, this.settings.caCertificates);
      const base = await this.renewalInfoUrl(acme);
      if (!base) return { kind: 'unsupported' };
      const url = `${base.replace(/\/+$/, '')}/${certId(certificatePem)}`;
      const response: AcmeProblemResponse = await acme.axios
        .get(url, { timeout: RENEWAL_INFO_TIMEOUT_MS })
        .catch((error: { response?: AcmeProblemResponse }) => {
          if (error.response) return error.response;
          throw error;
        });
      const retryAfter = response.headers?.['retry-after'];
      const header = typeof retryAfter === 'string' ? retryAfter : undefined;
      if (response.status !== 200) return failed(`The CA answered ${response.status} for renewal information.`, header);
      const window = parseRenewalInfo(response.data);
      if (!window) return failed('The CA sent no valid suggested window.', header);
      const recheckMs = renewalInfoRecheckMs(header, RENEWAL_INFO_RECHECK_MS.answered);
      return { kind: 'window', ...window, recheckAt: new Date(Date.now() + recheckMs) };
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    }
  }

  /** The directory's `renewalInfo` URL, null when the CA offers no ARI; read at most once an hour. */
  private async renewalInfoUrl(acme: Acme): Promise<string | null> {
    if (this.directory && Date.now() - this.directory.readAt < DIRECTORY_MAX_AGE_MS) return this.directory.renewalInfo;
    const response = await acme.axios.get(this.settings.directoryUrl, { timeout: RENEWAL_INFO_TIMEOUT_MS });
    const renewalInfo = (response.data as { renewalInfo?: unknown } | null)?.renewalInfo;
    this.directory = { renewalInfo: typeof renewalInfo === 'string' ? renewalInfo : null, readAt: Date.now() };
    return this.directory.renewalInfo;
  }
}

/**
 * A new order for `hostname`, naming the certificate it replaces when given. Should the CA refuse that (it was replaced
 * already, e.g. by an order whose certificate we never saved), the order is placed again without it.
 */
async function newOrder(client: acme.Client, hostname: string, replaces: string | null): Promise<acme.Order> {
  const identifiers = [{ type: 'dns', value: hostname }];
  if (!replaces) return client.createOrder({ identifiers });
  try {
    // `replaces` is RFC 9773's; acme-client 5 passes the payload on as it is but does not declare the field.
    return await client.createOrder({ identifiers, replaces } as Parameters<acme.Client['createOrder']>[0]);
  } catch (error) {
    if (!(error instanceof AcmeAlreadyReplacedError)) throw error;
    return client.createOrder({ identifiers });
  }
}
