import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Graph API error as Meta sends it, inside `{"error": {...}}`. */
export interface GraphErrorBody {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
}

/** One programmed answer: success (the real body), a Graph error with its HTTP status, or a connection dropped. */
export type GraphAnswer =
  | { kind: 'success' }
  | { kind: 'error'; status: number; error: GraphErrorBody }
  | { kind: 'drop' };

export interface GraphRequest {
  method: string;
  path: string;
  /** From the path `/{version}/{pixel_id}/events`; null when the path is not that. */
  version: string | null;
  pixelId: string | null;
  headers: http.IncomingHttpHeaders;
  /** The parameters as Graph reads them, from a JSON or form body (`data` parsed either way). */
  params: { data?: unknown; access_token?: string; test_event_code?: string; [name: string]: unknown };
  rawBody: string;
}

export const graphErrors = {
  /** What Graph answers for a malformed event (HTTP 400, OAuthException code 100). */
  invalidParameter: (message = 'Invalid parameter'): GraphAnswer => ({
    kind: 'error',
    status: 400,
    error: { message, type: 'OAuthException', code: 100, error_subcode: 2804003, is_transient: false },
  }),
  /** An expired or wrong token (HTTP 400, code 190). */
  invalidToken: (): GraphAnswer => ({
    kind: 'error',
    status: 400,
    error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 },
  }),
  /** Graph's generic server error (HTTP 500, code 2, transient). */
  serverError: (): GraphAnswer => ({
    kind: 'error',
    status: 500,
    error: {
      message: 'An unexpected error has occurred. Please retry your request later.',
      type: 'OAuthException',
      code: 2,
      is_transient: true,
    },
  }),
};

const fbtraceId = () => randomBytes(8).toString('base64url');

function parseParams(body: string, contentType: string | undefined): GraphRequest['params'] {
  try {
    if (contentType?.includes('application/json')) return JSON.parse(body);
    const form = Object.fromEntries(new URLSearchParams(body)) as Record<string, string>;
    return { ...form, ...(form.data ? { data: JSON.parse(form.data) } : {}) };
  } catch {
    return {};
  }
}

/**
 * A fixture Graph API on 127.0.0.1 speaking the Conversions API's protocol: `POST /{version}/{pixel_id}/events`
 * answers `{"events_received": N, "messages": [], "fbtrace_id": …}`, or a Graph error body when the request has no
 * `access_token` (190) or no `data` (100), when `tokens` names another token for the pixel (190), when
 * `invalidEvent` finds fault with any event of the request (100, the whole request refused), or when the next
 * programmed answer says so. Every request is recorded in `received`.
 */
export async function startGraphApi(
  options: {
    tokens?: Record<string, string>;
    /** Graph refuses a whole request (400, code 100) when one of its events is invalid: which ones are here. */
    invalidEvent?: (event: Record<string, unknown>) => string | null;
  } = {},
) {
  const received: GraphRequest[] = [];
  const script: GraphAnswer[] = [];

  function answerFor(request: GraphRequest): GraphAnswer {
    if (!request.pixelId || request.method !== 'POST')
      return graphErrors.invalidParameter('Unsupported request - method type: get');
    if (!request.params.access_token)
      return {
        kind: 'error',
        status: 400,
        error: { message: 'An access token is required to request this resource.', type: 'OAuthException', code: 104 },
      };
    const expected = options.tokens?.[request.pixelId];
    if (expected !== undefined && expected !== request.params.access_token) return graphErrors.invalidToken();
    const programmed = script.shift();
    if (programmed) return programmed;
    if (!Array.isArray(request.params.data) || request.params.data.length === 0)
      return graphErrors.invalidParameter('(#100) The parameter data is required');
    for (const event of request.params.data as Record<string, unknown>[]) {
      const problem = options.invalidEvent?.(event);
      if (problem) return graphErrors.invalidParameter(problem);
    }
    return { kind: 'success' };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const match = /^\/(v\d+\.\d+)\/([^/?]+)\/events(?:\?|$)/.exec(path);
      const request: GraphRequest = {
        method: req.method ?? 'GET',
        path,
        version: match?.[1] ?? null,
        pixelId: match ? decodeURIComponent(match[2]) : null,
        headers: req.headers,
        params: parseParams(rawBody, req.headers['content-type']),
        rawBody,
      };
      received.push(request);
      const answer = answerFor(request);
      if (answer.kind === 'drop') return void req.socket.destroy();
      const body =
        answer.kind === 'success'
          ? { events_received: (request.params.data as unknown[]).length, messages: [], fbtrace_id: fbtraceId() }
          : { error: { ...answer.error, fbtrace_id: answer.error.fbtrace_id ?? fbtraceId() } };
      res
        .writeHead(answer.kind === 'success' ? 200 : answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** META_GRAPH_ORIGIN for the code under test. */
    origin: `http://127.0.0.1:${port}`,
    received,
    /** Queues answers for the next requests, in order; after them, requests succeed again. */
    answerNext(...answers: GraphAnswer[]) {
      script.push(...answers);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type GraphApiFixture = Awaited<ReturnType<typeof startGraphApi>>;
