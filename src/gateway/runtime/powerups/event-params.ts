import type { ContainerSettingsDto } from '../../../modules/containers/settings.js';
import type { Visitor } from '../types.js';

/** Below this bot score a request looks human; marking adds nothing to its events (Stape's scale: 50–75 suspicious). */
const SUSPICIOUS_SCORE = 50;

/**
 * What the power-ups add to each event the built-in runtime forwards, as GA4 event parameters: bot marking
 * (`device_bot`, `device_bot_score`, named after Stape's `X-Device-Bot` headers) on suspicious and bot requests when
 * bot detection is `mark`, and the visitor's place (`geo_country`, `geo_region`, `geo_city`) when geo is on.
 */
export function powerupEventParams(visitor: Visitor, settings: ContainerSettingsDto): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  if (settings.bot_detection.mode === 'mark' && visitor.botScore !== null && visitor.botScore >= SUSPICIOUS_SCORE) {
    params.device_bot = visitor.bot ? 'true' : 'false';
    params.device_bot_score = visitor.botScore;
  }
  if (settings.geo_headers.enabled && visitor.country) {
    params.geo_country = visitor.country;
    if (visitor.region) params.geo_region = visitor.region;
    if (visitor.city) params.geo_city = visitor.city;
  }
  return params;
}

/** Sets event parameters on a GA4 hit in its own encoding: `ep.<name>` for text, `epn.<name>` for numbers. */
export function setGa4EventParams(hit: URLSearchParams, params: Record<string, string | number>): void {
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'number') hit.set(`epn.${name}`, String(value));
    else hit.set(`ep.${name}`, value);
  }
}
