import { Agent } from 'undici';

/** A request the platform sends to one of its containers. */
export interface PlatformRequest {
  /** The container's default hostname: the Host the gateway routes by. */
  hostname: string;
  method: string;
  path: string;
  /** [name, value, …]. */
  headers: string[];
  body: Buffer | string | null;
}

/** What came back: the HTTP status and the start of the body (to say why it failed). */
export interface PlatformAnswer {
  status: number;
  bodyStart: string;
}

const KEPT_ANSWER_CHARS = 300;

/**
 * Sends requests to containers through the gateway (`gatewayUrl`: GATEWAY_INTERNAL_URL, by default this instance's
 * plain gateway port on loopback), with the container's default hostname as Host: so they reach whatever runtime the
 * container has when they are sent, with its power-ups, metered like any request.
 */
export class GatewaySender {
  private readonly agent: Agent;
  private readonly origin: string;
  private readonly token: string;

  /** `platformToken` (platformRequestToken) tells the gateway the request is the platform's own. */
  constructor(settings: { gatewayUrl: string; timeoutMs: number; platformToken: string }) {
    this.origin = new URL(settings.gatewayUrl).origin;
    this.token = settings.platformToken;
    this.agent = new Agent({
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      connect: { timeout: settings.timeoutMs },
    });
  }

  async send(request: PlatformRequest): Promise<PlatformAnswer> {
    const withBody = request.body !== null && request.body.length > 0 && !['GET', 'HEAD'].includes(request.method);
    const response = await this.agent.request({
      origin: this.origin,
      path: request.path,
      method: request.method as 'GET',
      headers: ['host', request.hostname, 'x-tagport-platform', this.token, ...request.headers],
      body: withBody ? request.body : null,
    });
    let bodyStart = '';
    for await (const chunk of response.body) {
      if (bodyStart.length < KEPT_ANSWER_CHARS) bodyStart += (chunk as Buffer).toString('utf8');
    }
    return { status: response.statusCode, bodyStart: bodyStart.slice(0, KEPT_ANSWER_CHARS) };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Why an answer counts as failed, as shown in the API: the status and the start of what was answered. */
export function answerProblem(answer: PlatformAnswer): string {
  const said = answer.bodyStart.replace(/\s+/g, ' ').trim();
  return `HTTP ${answer.status} from the container${said ? `: ${said}` : ''}`.slice(0, 500);
}

/** Why a request could not be sent at all (connection refused, timeout). */
export function sendProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown })?.code;
  return `Not sent: ${typeof code === 'string' ? `${code} ` : ''}${message}`.slice(0, 500);
}
