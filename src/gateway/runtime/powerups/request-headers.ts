import { createHmac } from 'node:crypto';
import type { ContainerSettingsDto } from '../../../modules/containers/settings.js';
import { truncateIp } from './anonymizer.js';
import type { RequestHeaders } from './bot-detection.js';

/** Google's header that sends a request to the tagging server's preview (GTM's "Preview" mode). */
const PREVIEW_HEADER = 'x-gtm-server-preview';

function first(headers: RequestHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * The visitor's id for the User ID power-up: the same for the same browser on the same network (IPv4 /24, IPv6 /48,
 * so a renewed address keeps it), different for every container, and not reversible to the IP: an HMAC of the
 * network, user agent and languages under the platform's key, the container's id mixed in.
 */
export function visitorId(key: Buffer, containerId: string, ip: string, headers: RequestHeaders): string {
  const parts = [containerId, truncateIp(ip), first(headers, 'user-agent'), first(headers, 'accept-language')];
  return createHmac('sha256', key).update(parts.join('\n')).digest('base64url').slice(0, 32);
}

/**
 * The headers of the GTM Preview Header and User ID power-ups (`upstream` and `sgtm`), as a flat list of names and
 * values: the configured `X-Gtm-Server-Preview` when the request has none, and `X-Stape-User-Id` (Stape's name,
 * read by templates written for it) with `X-Tagport-User-Id`, the same value under our name.
 */
export function requestPowerupHeaders(
  settings: ContainerSettingsDto,
  visitor: { containerId: string; ip: string; headers: RequestHeaders },
  key: Buffer,
): string[] {
  const headers: string[] = [];
  const preview = settings.preview_header.value;
  if (preview && !first(visitor.headers, PREVIEW_HEADER)) headers.push(PREVIEW_HEADER, preview);
  if (settings.user_id_header.enabled) {
    const id = visitorId(key, visitor.containerId, visitor.ip, visitor.headers);
    headers.push('x-stape-user-id', id, 'x-tagport-user-id', id);
  }
  return headers;
}
