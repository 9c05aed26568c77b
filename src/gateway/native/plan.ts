// The plan of nginx.conf: what the nginx engine writes it from.

/** A certificate and its key as files nginx reads (the key in a directory only the service's user can read). */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

/** A hostname with its own certificate (a custom domain's). */
export interface NativeHostname {
  name: string;
  certificate: CertificateFiles;
}

/** A container nginx proxies itself: running, on the `upstream` runtime, with no power-up that needs Node. */
export interface NativeRoute {
  containerId: string;
  hostnames: string[];
  upstream: {
    scheme: 'http' | 'https';
    /** `ip:port` (IPv6 in brackets), resolved and checked by the SSRF guard when the config was written. */
    addresses: string[];
    /** The Host header (and TLS name) the upstream expects: its URL's host. */
    host: string;
    serverName: string;
    /** The upstream URL's path, without a trailing slash: every request goes under it. */
    basePath: string;
  };
  /** Bot detection is on (`mark` or `drop`: on the upstream runtime both mark): nginx sets `X-Device-Bot`, `X-Device-Bot-Score` and, for a bot, `X-Tagport-Bot: 1`. */
  markBots: boolean;
  /** Requests for the custom loader (`/<loader_path>.js`) go to Node, which serves it. */
  loaderPath: string;
  /**
   * The addresses are an `sgtm` container's tagging replicas: a request refused by one (it never got it) goes to
   * the next, and a replica that failed is passed over for a few seconds.
   */
  replicas: boolean;
}

/** Everything nginx.conf is made of. */
export interface NativePlan {
  runDir: string;
  workers: number;
  host: string;
  httpPort: number;
  /** With a TLS port, container hostnames are served there; the plain port goes to Node (challenges, redirects). */
  tlsPort: number | null;
  defaultCertificate: CertificateFiles | null;
  /** The Node gateway's internal listener (`127.0.0.1:port`): everything nginx does not proxy itself. */
  fallback: string;
  /** Sent to the internal listener, which trusts the client address nginx reports only with it. */
  frontSecret: string;
  /** The platform's own requests carry it (X-Tagport-Platform); only theirs keep X-Tagport-Schedule / -Delayed-By. */
  platformToken: string;
  meterLog: string;
  /** CA bundle for verifying https upstreams. */
  caFile: string;
  upstreamTimeoutMs: number;
  routes: NativeRoute[];
  /**
   * Every hostname with its own certificate, whoever serves it: nginx ends TLS for all of them and picks the
   * certificate by the name the client asks for (SNI), reading its file at the handshake.
   */
  certificates: NativeHostname[];
}
