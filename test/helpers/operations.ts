/** The documented operations of an OpenAPI document, for tests generated from it and for the coverage check. */
export interface Operation {
  operationId: string;
  method: string;
  /** The OpenAPI path, e.g. `/api/containers/{id}/stop/`. */
  path: string;
  /** The Fastify route pattern, e.g. `/api/containers/:id/stop/`, as `request.routeOptions.url` names it. */
  route: string;
  /** True when the operation needs no credentials (`security: []`). */
  public: boolean;
  /** True when only the web session cookie is accepted (the person's own sign-in, sessions and second factor). */
  sessionOnly: boolean;
  tags: string[];
}

const methods = ['get', 'post', 'put', 'patch', 'delete'];

export function listOperations(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {}))
    for (const method of methods) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const security = operation.security ?? document.security ?? [];
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        route: routePattern(path),
        public: security.length === 0,
        sessionOnly:
          security.length > 0 && security.every((requirement: object) => Object.keys(requirement).join() === 'session'),
        tags: operation.tags ?? [],
      });
    }
  return operations;
}

export function routePattern(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1');
}

/** One key per (method, route) pair, ignoring a trailing slash. */
export function operationKey(method: string, route: string): string {
  return `${method.toUpperCase()} ${route.replace(/\/$/, '')}`;
}
