import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import type http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { InvalidationBus } from '../db/invalidation.js';
import { listenOn } from '../lib/ports.js';

export interface TlsKeyPair {
  certificatePem: string;
  privateKeyPem: string;
}

export interface CustomDomainCertificates {
  /** The certificate and key served for a custom domain; null when it has none (or is not active). */
  served(hostname: string): Promise<TlsKeyPair | null>;
}

type RequestListener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** How long a looked-up custom certificate (or its absence) is kept; invalidations clear it sooner. */
const CONTEXT_TTL_MS = 5 * 60_000;
/**
 * The custom domains whose TLS context is kept, the ones handshaking most recently: a context holds ~29 KB and takes
 * ~0.7 ms to make, so 10,000 domains would hold ~290 MB, while a handshake that makes one again costs a millisecond.
 */
const MAX_CACHED_CONTEXTS = 2_000;

/**
 * The gateway's TLS listener: HTTP/2 where the client offers it (ALPN), HTTP/1.1 otherwise, the same request handler
 * as the plain port. The certificate is chosen by SNI: a custom domain gets its ACME certificate (looked up once,
 * cached, dropped on a `certificate` or `domain` invalidation); everything else gets the default certificate for
 * `*.<baseDomain>` (from files, or self-signed at start for development).
 */
export class TlsGateway {
  private server: http2.Http2SecureServer | null = null;
  private readonly contexts = new Map<string, { context: tls.SecureContext | null; at: number }>();
  private generation = 0;
  private readonly certificates: CustomDomainCertificates | null;
  private readonly handler: RequestListener;

  constructor(
    {
      certificates,
      invalidations,
      handler,
    }: { certificates: CustomDomainCertificates | null; invalidations: InvalidationBus; handler: RequestListener },
    private readonly settings: {
      baseDomain: string;
      certFile: string | null;
      keyFile: string | null;
      onError: (error: unknown) => void;
      /** How many custom domains' contexts are kept (MAX_CACHED_CONTEXTS). */
      maxContexts?: number;
    },
  ) {
    this.certificates = certificates;
    this.handler = handler;
    // A domain's and a certificate's change name their hostname: only its context is looked up again.
    invalidations.subscribe(({ kind, id }) => {
      if (kind === 'all') this.contexts.clear();
      else if (kind === 'certificate' || kind === 'domain') this.contexts.delete(id);
      else return;
      this.generation++;
    });
  }

  /** The port it listens on; null when not listening (the plain port then serves http without redirecting). */
  get port(): number | null {
    return this.server?.listening ? (this.server.address() as AddressInfo).port : null;
  }

  async listen(port: number, host: string): Promise<string> {
    const fallback = await this.defaultCertificate();
    this.server = http2.createSecureServer(
      {
        allowHTTP1: true,
        cert: fallback.certificatePem,
        key: fallback.privateKeyPem,
        minVersion: 'TLSv1.2',
        SNICallback: (servername, callback) =>
          void this.contextFor(servername).then(
            (context) => callback(null, context ?? undefined),
            (error) => {
              this.settings.onError(error);
              callback(null, undefined);
            },
          ),
      },
      (req, res) => {
        if (req.httpVersionMajor === 2) asHttp1Headers(req);
        // Cast: the handler takes HTTP/2 compatibility objects as HTTP/1's, which they mimic (headers made HTTP/1 above).
        this.handler(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
      },
    );
    await listenOn(this.server, port, host);
    const address = this.server.address() as AddressInfo;
    return `https://${address.address}:${address.port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // HTTP/2 sessions and idle HTTP/1 keep-alive sockets would hold close() open.
      setTimeout(resolve, 1000).unref();
    });
    this.server = null;
  }

  /** The SNI name's own certificate when it is a custom domain that has one; undefined: the default certificate. */
  private async contextFor(servername: string): Promise<tls.SecureContext | null> {
    const hostname = servername.toLowerCase().replace(/\.$/, '');
    const { baseDomain } = this.settings;
    if (!this.certificates || hostname === baseDomain || hostname.endsWith(`.${baseDomain}`)) return null;
    const cached = this.contexts.get(hostname);
    if (cached && Date.now() - cached.at < CONTEXT_TTL_MS) {
      // Last in the map's order: the least recently used is the first.
      this.contexts.delete(hostname);
      this.contexts.set(hostname, cached);
      return cached.context;
    }
    const generation = this.generation;
    const pair = await this.certificates.served(hostname);
    const context = pair ? tls.createSecureContext({ cert: pair.certificatePem, key: pair.privateKeyPem }) : null;
    // Looked up before a change that came meanwhile: used for this handshake, not kept.
    if (generation !== this.generation) return context;
    this.contexts.delete(hostname);
    if (this.contexts.size >= (this.settings.maxContexts ?? MAX_CACHED_CONTEXTS))
      this.contexts.delete(this.contexts.keys().next().value!);
    this.contexts.set(hostname, { context, at: Date.now() });
    return context;
  }

  private async defaultCertificate(): Promise<TlsKeyPair> {
    const { certFile, keyFile, baseDomain } = this.settings;
    if (certFile && keyFile)
      return { certificatePem: await fs.readFile(certFile, 'utf8'), privateKeyPem: await fs.readFile(keyFile, 'utf8') };
    return selfSignedWildcard(baseDomain);
  }
}

/**
 * An HTTP/2 request as the gateway's handler reads an HTTP/1 one: `host` from `:authority`, and no pseudo-headers
 * among the headers it forwards. The compat request reads `url` and `method` from its header object, so they are
 * fixed on the request first and the header object is replaced, not edited.
 */
function asHttp1Headers(req: http2.Http2ServerRequest) {
  const { url, method, authority } = req;
  const headers: http.IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!name.startsWith(':')) headers[name] = value;
  headers.host ??= authority;
  Object.defineProperties(req, {
    url: { value: url, writable: true },
    method: { value: method },
    headers: { value: headers },
  });
}

/** A development certificate for `<baseDomain>` and `*.<baseDomain>`, valid for a year, made in memory. */
export async function selfSignedWildcard(baseDomain: string): Promise<TlsKeyPair> {
  // Loaded here, not at start: @peculiar/x509 and its ASN.1 modules are a few hundred modules.
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex'),
    name: `CN=*.${baseDomain}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 365 * 86_400_000),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: baseDomain },
        { type: 'dns', value: `*.${baseDomain}` },
      ]),
    ],
  });
  return {
    certificatePem: certificate.toString('pem'),
    privateKeyPem: KeyObject.from(keys.privateKey as webcrypto.CryptoKey)
      .export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  };
}
