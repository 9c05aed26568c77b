import { createHash } from 'node:crypto';
import type { NativeRoute } from './plan.js';

// How nginx finds a proxied request's container and its pool: the route maps and the upstream pools.

/**
 * Containers whose upstream is the same (the same addresses, scheme and, over TLS, the same name checked) share one
 * pool, so they share its kept-alive connections: one request of each of 10,000 containers to one tagging server
 * reuses them instead of opening a connection per container. Over TLS the name is part of the pool, so a connection
 * verified for one name never carries another's requests. The name is a hash: nginx looks a request's pool up by name
 * through every pool before it, and names that differ in their first characters compare fast.
 */
function poolName({ upstream, replicas }: NativeRoute): string {
  const identity = [
    upstream.scheme,
    upstream.scheme === 'https' ? upstream.serverName : '',
    replicas ? 'replicas' : '',
    ...[...upstream.addresses].sort(),
  ].join(' ');
  return `p${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
}

/**
 * `keepalive 128`: idle connections each nginx worker keeps per upstream: fewer than the requests in flight make nginx
 * close and reopen connections on every burst (measured: 44 → 38 CPU ms per 1,000 requests at 50 in flight).
 */
export function upstreamBlock(route: NativeRoute): string {
  const failure = route.replicas ? ' max_fails=1 fail_timeout=3s' : '';
  // Sorted as in the pool's name: two containers with the same addresses in another order write the same block.
  const servers = [...route.upstream.addresses]
    .sort()
    .map((address) => `server ${address}${failure};`)
    .join(' ');
  return `upstream ${poolName(route)} { ${servers} keepalive 128; keepalive_timeout 4s; }`;
}

/**
 * Where a container's requests go: its pool, over its scheme, under its base path; nginx appends the target as it
 * came. The pool is found by name on each request, through the upstream blocks in order (one per distinct upstream).
 */
function upstreamPrefix(route: NativeRoute): string {
  return `${route.upstream.scheme}://${poolName(route)}${route.upstream.basePath}`;
}

/** Words a map reads as its own parameters: a key spelled like one is escaped. */
const MAP_PARAMETERS = new Set(['default', 'hostnames', 'include', 'volatile']);

export function mapBlock(source: string, variable: string, fallback: string, entries: Array<[string, string]>): string {
  const lines = entries.map(([key, value]) => `    ${MAP_PARAMETERS.has(key) ? `\\${key}` : key} ${value};`);
  return `map ${source} ${variable} {
    default ${fallback};
${lines.join('\n')}
  }`;
}

/**
 * Each proxied container's settings, found by hostname and then by container id: hashes built when nginx reads the
 * config, so a request finds its container's in constant time, and a container costs a few entries rather than a
 * server block of its own (whose memory every nginx process holds and whose parse every reload pays).
 */
export function routeMaps(routes: NativeRoute[]): string {
  const byContainer = (variable: string, fallback: string, value: (route: NativeRoute) => string | null) =>
    mapBlock(
      '$tagport_container',
      variable,
      fallback,
      routes.flatMap((route): Array<[string, string]> => {
        const text = value(route);
        return text === null ? [] : [[route.containerId, text]];
      }),
    );
  const tlsName = ({ upstream }: NativeRoute) =>
    upstream.scheme === 'https' && upstream.serverName !== upstream.host ? upstream.serverName : null;
  const markedBy = (variable: string) =>
    `map $tagport_mark_bots $tagport_route_${variable} { 1 $tagport_${variable}; default ""; }`;
  return [
    mapBlock(
      '$host',
      '$tagport_container',
      '""',
      routes.flatMap((route) => route.hostnames.map((name): [string, string] => [name, route.containerId])),
    ),
    byContainer('$tagport_upstream', '""', upstreamPrefix),
    byContainer('$tagport_upstream_host', '""', (route) => route.upstream.host),
    byContainer('$tagport_upstream_tls_name', '$tagport_upstream_host', tlsName),
    byContainer('$tagport_loader', '""', (route) => `/${route.loaderPath}.js`),
    byContainer('$tagport_mark_bots', '0', (route) => (route.markBots ? '1' : null)),
    markedBy('bot'),
    markedBy('device_bot'),
    markedBy('bot_score'),
  ].join('\n  ');
}
