import net from 'node:net';
import type { CertificateFiles, NativePlan, NativeRoute } from './plan.js';
import { botMaps, platformMaps, TARGET_MAPS } from './request-maps.js';
import { mapBlock, routeMaps, upstreamBlock } from './routing.js';

const HOSTNAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
const CONTAINER_ID = /^[A-Za-z0-9_]{1,64}$/;
const UPSTREAM_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
const BASE_PATH = /^(?:\/[A-Za-z0-9\-._~%]+)*$/;
const LOADER_PATH = /^[a-z0-9-]{1,64}$/;

/**
 * Whether every value of a route that is written into nginx.conf is of a shape that cannot change its meaning
 * (no quotes, braces, semicolons, `$` or spaces). A route that is not stays with the Node gateway, which serves
 * it the same way, only slower.
 */
export function writableRoute(route: NativeRoute): boolean {
  const { upstream } = route;
  return (
    CONTAINER_ID.test(route.containerId) &&
    route.hostnames.length > 0 &&
    route.hostnames.every((name) => HOSTNAME.test(name)) &&
    upstream.addresses.length > 0 &&
    upstream.addresses.every(isAddressWithPort) &&
    UPSTREAM_HOST.test(upstream.host) &&
    HOSTNAME.test(upstream.serverName.replace(/^\[|\]$/g, '').replaceAll(':', '-')) &&
    BASE_PATH.test(upstream.basePath) &&
    LOADER_PATH.test(route.loaderPath)
  );
}

function isAddressWithPort(address: string): boolean {
  const match = /^(?:\[([0-9a-f:.]+)\]|([0-9.]+)):(\d{1,5})$/i.exec(address);
  return match !== null && net.isIP(match[1] ?? match[2]) !== 0 && Number(match[3]) <= 65_535;
}

/**
 * Set by the Node gateway's geo and user id power-ups (containers with them on stay with Node); a client's own are
 * dropped.
 */
const POWERUP_HEADERS = [
  'X-Geo-Country',
  'X-Geo-Region',
  'X-Geo-City',
  'X-Gclb-Country',
  'X-Stape-User-Id',
  'X-Tagport-User-Id',
];

/**
 * The headers the Node gateway sets or drops for the upstream (see forwardedHeaders): the forwarding headers,
 * no hop-by-hop header, and no power-up header a client sent itself. In each location: nginx inherits
 * `proxy_set_header` only into a level that sets none.
 */
const FORWARDED_HEADERS = [
  'Connection ""',
  'X-Forwarded-For $proxy_add_x_forwarded_for',
  'X-Forwarded-Proto https',
  'X-Tagport-Bot $tagport_route_bot',
  'X-Device-Bot $tagport_route_device_bot',
  'X-Device-Bot-Score $tagport_route_bot_score',
  ...POWERUP_HEADERS.map((name) => `${name} ""`),
  'X-Tagport-Platform ""',
  'X-Tagport-Schedule $tagport_schedule',
  'X-Tagport-Delayed-By $tagport_delayed_by',
  'TE ""',
  'Upgrade ""',
  'Keep-Alive ""',
  'Trailer ""',
  'Proxy-Authorization ""',
  'Proxy-Connection ""',
]
  .map((header) => `proxy_set_header ${header};`)
  .join('\n      ');

/** The gateway's own error body for what nginx answers itself (the upstream unreachable, a malformed request). */
const errorBody = (code: string, message: string) =>
  `'{"error":{"code":"${code}","message":"${message.replaceAll("'", "\\'")}"},"api_meta":{"request_id":"$request_id"}}'`;

/**
 * A request nginx refuses before routing it (a target that climbs above the root, a malformed header). A named
 * location cannot take it (nginx has no URI for it yet), so the error page is an internal-only path.
 */
const BAD_REQUEST = `error_page 400 /.tagport/bad-request;
    location = /.tagport/bad-request {
      internal;
      default_type "application/json; charset=utf-8";
      add_header X-Request-Id $request_id always;
      return 400 ${errorBody('bad_request', 'The request is malformed: it needs exactly one valid Host header and a target that is a path within the container, such as /g/collect?v=2.')};
    }`;

/** How nginx hands a request to the Node gateway: as it came, with the client's address and scheme vouched for. */
function nodeProxy(plan: NativePlan): string {
  return `proxy_pass http://tagport_node;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Tagport-Front "${plan.frontSecret}";
      proxy_set_header X-Tagport-Client $remote_addr;
      proxy_set_header X-Tagport-Scheme $scheme;
      proxy_set_header X-Tagport-Authority $host;
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_read_timeout ${Math.ceil(plan.upstreamTimeoutMs / 1000) + 5}s;
      access_log off;`;
}

/**
 * An `sgtm` container's replicas: a failed connection counts against the replica (passed over for 3 s by every
 * worker), and the request is not sent to another one, except that nginx always gives one more try when a kept-alive
 * connection fails (the common case is a replica that closed an idle connection). That try may repeat a hit a
 * killed replica had already forwarded; the Node gateway, which can tell the cases apart, never does.
 */
const REPLICA_FAILURES = 'proxy_next_upstream error; proxy_next_upstream_tries 1;';

/**
 * A container's server listens where the default server does, without `ssl`: nginx then keeps the default server's
 * TLS context, whose certificate is chosen by SNI, instead of making one (and loading a certificate) per server.
 */
function containerListen(plan: NativePlan): string {
  const host = plan.host.includes(':') ? `[${plan.host}]` : plan.host;
  return `listen ${host}:${plan.tlsPort ?? plan.httpPort};`;
}

/**
 * The server of the proxied containers of one kind (an upstream, or an `sgtm` container's replicas), for all their
 * hostnames; each request's route comes from the maps. What nginx cannot proxy itself goes to Node (`@node`).
 */
function routedServer(plan: NativePlan, routes: NativeRoute[], replicas: boolean): string {
  if (routes.length === 0) return '';
  const tlsUpstream = replicas
    ? ''
    : `proxy_ssl_server_name on; proxy_ssl_name $tagport_upstream_tls_name; proxy_ssl_verify on;
      proxy_ssl_trusted_certificate ${plan.caFile}; proxy_ssl_session_reuse on;`;
  return `server {
    ${containerListen(plan)}
    ${routes.map((route) => `server_name ${route.hostnames.join(' ')};`).join('\n    ')}
    error_page 418 = @node;
    error_page 502 504 = @upstream_failed;
    location / {
      if ($tagport_here = 0) { return 418; }
      proxy_pass $tagport_upstream$request_uri;
      ${replicas ? REPLICA_FAILURES : ''}
      proxy_set_header Host $tagport_upstream_host;
      proxy_set_header X-Forwarded-Host $host;
      ${FORWARDED_HEADERS}
      ${tlsUpstream}
    }
    location @node { ${nodeProxy(plan)} }
    ${BAD_REQUEST}
    location @upstream_failed {
      default_type "application/json; charset=utf-8";
      add_header X-Request-Id $request_id always;
      return 502 ${errorBody('upstream_unreachable', "The container's tagging server could not be reached. Quote the request id if you contact us.")};
    }
  }`;
}

/**
 * The certificate of each handshake, by the name the client asked for: a custom domain's own, else the default.
 * nginx reads the file at the handshake, so a renewed certificate (written over the same file) needs no reload, and
 * thousands of them cost nothing until asked for.
 */
function certificateMaps(plan: NativePlan, fallback: CertificateFiles): string {
  const named = plan.certificates.filter(({ name }) => HOSTNAME.test(name));
  const map = (variable: string, fallbackFile: string, file: (files: CertificateFiles) => string) =>
    mapBlock(
      '$ssl_server_name',
      variable,
      fallbackFile,
      named.map(({ name, certificate }) => [name, file(certificate)]),
    );
  return `${map('$tagport_certificate', fallback.certFile, (files) => files.certFile)}
  ${map('$tagport_certificate_key', fallback.keyFile, (files) => files.keyFile)}`;
}

/**
 * nginx.conf for a plan: the proxied containers' routes as maps, a server for their hostnames per kind of route, and
 * a default server handing the rest to Node. TLS ends in the default server's context for every hostname, with the
 * certificate chosen by SNI.
 */
export function renderNginxConfig(plan: NativePlan): string {
  const routes = plan.routes.filter(writableRoute);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `${kind}_temp_path ${plan.runDir}/temp/${kind};`)
    .join('\n  ');
  const tls = plan.tlsPort !== null && plan.defaultCertificate ? plan.defaultCertificate : null;
  const tlsSettings = tls
    ? `${certificateMaps(plan, tls)}
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:tagport_tls:10m;`
    : '';
  const host = plan.host.includes(':') ? `[${plan.host}]` : plan.host;
  const plainDefault = `listen ${host}:${plan.httpPort} default_server;`;
  const tlsDefault = tls
    ? `listen ${host}:${plan.tlsPort} ssl http2 default_server;
    ssl_certificate $tagport_certificate;
    ssl_certificate_key $tagport_certificate_key;`
    : '';
  // Room for every hostname's entry in one hash (nginx tries sizes up to this one).
  const hostnames = routes.reduce((count, route) => count + route.hostnames.length, 0);
  const mapHashSize = Math.max(2048, 4 * plan.certificates.length, 4 * hostnames);
  return `daemon off;
master_process on;
pcre_jit on;
worker_processes ${plan.workers};
pid ${plan.runDir}/nginx.pid;
error_log ${plan.runDir}/error.log warn;
events { worker_connections 8192; }
http {
  ${temp}
  server_tokens off;
  underscores_in_headers on;
  large_client_header_buffers 4 16k;
  client_max_body_size 0;
  server_names_hash_max_size 65536;
  server_names_hash_bucket_size 256;
  map_hash_bucket_size 128;
  map_hash_max_size ${mapHashSize};
  keepalive_timeout 5s;
  log_format tagport_meter escape=json '$msec\\t$tagport_container\\t$host\\t$status\\t$content_length\\t$body_bytes_sent\\t$request_method\\t$upstream_response_time\\t$request_time\\t$request_uri';
  access_log ${plan.meterLog} tagport_meter buffer=64k flush=1s if=$tagport_metered;
  map $tagport_container $tagport_metered { "" 0; default 1; }
  ${TARGET_MAPS}
  ${botMaps()}
  ${platformMaps(plan.platformToken)}
  ${routeMaps(routes)}
  proxy_http_version 1.1;
  proxy_pass_header Server;
  proxy_pass_header Date;
  proxy_ignore_headers X-Accel-Redirect X-Accel-Expires X-Accel-Limit-Rate X-Accel-Buffering X-Accel-Charset;
  proxy_request_buffering off;
  proxy_connect_timeout ${Math.ceil(plan.upstreamTimeoutMs / 1000)}s;
  proxy_read_timeout ${Math.ceil(plan.upstreamTimeoutMs / 1000)}s;
  proxy_send_timeout ${Math.ceil(plan.upstreamTimeoutMs / 1000)}s;
  proxy_next_upstream off;
  ${tlsSettings}
  upstream tagport_node { server ${plan.fallback}; keepalive 64; }
  ${[...new Set(routes.map(upstreamBlock))].join('\n  ')}
  server {
    ${plainDefault}
    ${tlsDefault}
    location / { ${nodeProxy(plan)} }
    ${BAD_REQUEST}
  }
  ${routedServer(
    plan,
    routes.filter((route) => !route.replicas),
    false,
  )}
  ${routedServer(
    plan,
    routes.filter((route) => route.replicas),
    true,
  )}
}
`;
}
