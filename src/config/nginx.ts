import { type Env, existingDirectory, integer, port } from './env.js';

/** The gateway's settings that only the nginx engine (GATEWAY_ENGINE=nginx) reads. */
export interface NginxGatewayConfig {
  /** The nginx binary of the nginx engine. */
  nginxPath?: string;
  /** CA bundle the nginx engine verifies https upstreams with. */
  caFile?: string;
  /** Where the nginx engine keeps its run directory (config, logs, certificate keys): best on tmpfs (/run). */
  nginxDir?: string | null;
  /** The port of the Node listener the nginx engine hands requests to (on 127.0.0.1); 0: any free one. */
  nginxInternalPort?: number;
  /**
   * At most this many containers are proxied by nginx itself (the busiest over the last two days); the rest are
   * proxied by Node behind nginx. Each costs a few map entries: ~2 KB per nginx process and ~13 µs per reload.
   */
  nginxNativeLimit?: number;
}

export function nginxGatewayConfig(env: Env): Required<NginxGatewayConfig> {
  return {
    nginxPath: env.GATEWAY_NGINX || '/usr/sbin/nginx',
    caFile: env.GATEWAY_CA_FILE || '/etc/ssl/certs/ca-certificates.crt',
    nginxDir: existingDirectory(env, 'GATEWAY_NGINX_DIR'),
    nginxInternalPort: port(env, 'GATEWAY_NGINX_INTERNAL_PORT', 0),
    nginxNativeLimit: integer(env, 'GATEWAY_NGINX_NATIVE_LIMIT', 25_000),
  };
}
