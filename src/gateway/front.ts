import type http from 'node:http';
import { arrivedOverTls } from './client.js';
import type { Reply } from './answers.js';
import type { RequestHead } from './http1/request-head.js';

const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

export interface ChallengeSource {
  /** The key authorization for an ACME HTTP-01 token; null when unknown. */
  challenge(token: string): Promise<string | null>;
}

/**
 * What the gateway answers on its plain port besides routing: ACME HTTP-01 challenges (for any host, so the CA can
 * validate a custom domain whichever instance it reaches), and, once the TLS listener is up, a 308 from plain HTTP
 * to https for the hostnames it serves, for everything but challenges and `/healthz`.
 */
export class GatewayFront {
  constructor(
    private readonly challenges: ChallengeSource | null,
    /** The https port to redirect to; null while no TLS listener runs (then plain HTTP is served as before). */
    private readonly httpsPort: () => number | null,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** True when the request is an ACME HTTP-01 challenge on the plain port, answered here (for any host). */
  challenged(req: RequestHead, res: http.ServerResponse): boolean {
    const url = req.url ?? '/';
    if (arrivedOverTls(req) || !url.startsWith(CHALLENGE_PREFIX) || !this.challenges) return false;
    this.answerChallenge(url.slice(CHALLENGE_PREFIX.length), res);
    return true;
  }

  /**
   * True when a plain HTTP request was redirected to https: called only for a hostname the gateway serves, already
   * validated (src/gateway/host.ts), so the location never carries what the client wrote in its Host.
   */
  redirected(req: RequestHead, res: Reply, hostname: string): boolean {
    const location = this.redirectLocation(req, hostname);
    if (location === null) return false;
    res.writeHead(308, { location, 'content-length': 0 }).end();
    return true;
  }

  /** Where redirected() would send the request; null when it serves it where it came. */
  redirectLocation(req: RequestHead, hostname: string): string | null {
    const url = req.url ?? '/';
    const port = this.httpsPort();
    if (arrivedOverTls(req) || port === null || url === '/healthz' || !hostname) return null;
    return `https://${hostname}${port === 443 ? '' : `:${port}`}${url.startsWith('/') ? url : '/'}`;
  }

  private answerChallenge(token: string, res: http.ServerResponse) {
    const notFound = () => res.writeHead(404, { 'content-type': 'text/plain' }).end('Unknown challenge');
    if (!TOKEN.test(token)) return void notFound();
    this.challenges!.challenge(token).then(
      (keyAuthorization) =>
        keyAuthorization === null
          ? notFound()
          : res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(keyAuthorization),
      (error) => {
        this.onError(error);
        res.writeHead(503, { 'content-type': 'text/plain' }).end('Challenge lookup failed');
      },
    );
  }
}
