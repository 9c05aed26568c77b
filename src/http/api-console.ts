import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';

const CONSOLE_PREFIX = '/api/docs';
/** Headers of the console's own answer that the outer reply writes itself. */
const CONNECTION_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * The Scalar API console under /api/docs, loaded on its first request: its module holds its 8 MB browser bundle as a
 * string, about 45 MB of resident memory once loaded and registered, which most processes never serve. It runs in a
 * Fastify instance of its own; requests under /api/docs are handed to it, its answers go back as they are.
 */
export function registerApiConsole(
  app: FastifyInstance,
  configuration: FastifyApiReferenceOptions['configuration'],
): void {
  let loaded: Promise<FastifyInstance> | null = null;
  const load = async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(scalar, { routePrefix: CONSOLE_PREFIX, configuration });
    await inner.ready();
    return inner;
  };
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    loaded ??= load().catch((error: unknown) => {
      loaded = null;
      throw error;
    });
    const answer = await (await loaded).inject({ method: 'GET', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !CONNECTION_HEADERS.has(name)) reply.header(name, value);
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  for (const url of [CONSOLE_PREFIX, `${CONSOLE_PREFIX}/*`])
    app.get(url, { config: { public: true }, schema: { hide: true }, logLevel: 'warn' }, serve);
}
