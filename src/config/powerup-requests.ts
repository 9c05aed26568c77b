import { type Env, integer, origin } from './env.js';

/**
 * Where workers send the requests the platform makes to containers (Request Delay, Schedule): GATEWAY_INTERNAL_URL,
 * the plain HTTP port of a gateway (its `node` listener, or nginx's plain port), by default this host's GATEWAY_PORT
 * on loopback; and how long one may take (POWERUP_REQUEST_TIMEOUT_MS).
 */
export function powerupRequestsConfig(env: Env): { gatewayUrl: string; timeoutMs: number } {
  return {
    gatewayUrl: origin(env, 'GATEWAY_INTERNAL_URL', `http://127.0.0.1:${integer(env, 'GATEWAY_PORT', 3001)}`),
    timeoutMs: integer(env, 'POWERUP_REQUEST_TIMEOUT_MS', 30_000, 100),
  };
}
