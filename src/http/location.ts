import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

type Done = (error: Error | null, payload?: unknown) => void;

const identified = (payload: unknown): payload is { id: string } =>
  typeof payload === 'object' && payload !== null && typeof (payload as { id?: unknown }).id === 'string';

/**
 * A 201 from a POST on a collection (`/api/containers/`) carries `Location`, the URL of the new object, when a
 * GET route serves it (`/api/containers/:id/`). Attached as each route is registered, so new routes get it too.
 */
export function registerCreatedLocation(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    const responses = route.schema?.response as Record<string, unknown> | undefined;
    if (!methods.includes('POST') || !route.url.endsWith('/') || !responses?.[201]) return;
    // The router stores paths without their trailing slash (ignoreTrailingSlash).
    const objectRoute = { method: 'GET' as const, url: `${route.url}:id` };
    const setLocation = (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => {
      if (reply.statusCode === 201 && identified(payload) && app.hasRoute(objectRoute))
        reply.header('location', `${route.url}${encodeURIComponent(payload.id)}/`);
      done(null, payload);
    };
    const existing = route.preSerialization;
    route.preSerialization = (
      existing === undefined ? [setLocation] : [...[existing].flat(), setLocation]
    ) as RouteOptions['preSerialization'];
  });
}
