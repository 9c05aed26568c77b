import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { ContainerSettingsDto } from '../../modules/containers/settings.js';
import { detectBot, type GeoFiles, GeoLookup, type GeoPlace, keepCookies, restoreClickIds } from './powerups/index.js';
import { platformRequestHeaders } from '../client.js';
import { requestPowerupHeaders } from './powerups/request-headers.js';
import type { Visitor } from './types.js';
import { clientAddress, type TrustedProxies, visitorOf } from './visitor.js';
import type { RequestHead } from '../http1/request-head.js';

/** A request seen through the container's power-ups. */
export interface Visit {
  visitor: Visitor;
  /** Bot detection in `drop` mode flagged it: nothing is forwarded. */
  dropped: boolean;
  /** Set-Cookie values of the cookie keeper and the click id restorer. */
  setCookies: string[];
  /** Cookies the keeper brought back from their backups. */
  restored: number;
}

/**
 * Applies a container's power-ups to a request, in the order they depend on each other: bot detection (drop or
 * mark) → cookie keeper → click id restorer → geo. The anonymizer applies later, per vendor, on what is sent.
 */
export class Powerups {
  /** One geo database per process, opened on first use. */
  private readonly geo: GeoLookup;

  constructor(
    private readonly trust: TrustedProxies,
    private readonly onError: (error: unknown) => void,
    geoFiles?: GeoFiles,
    /** The key of the User ID power-up's ids (see visitorId); a random one (ids of this process only) when absent. */
    private readonly visitorIdKey: Buffer = randomBytes(32),
  ) {
    this.geo = new GeoLookup(geoFiles);
  }

  /**
   * The visitor of a hit on the built-in runtime; `pageUrl` is the page the hit came from (for click ids). A promise
   * only when the geo power-up has an address to look up: the hit path costs no promise otherwise.
   */
  visit(
    req: RequestHead,
    settings: ContainerSettingsDto,
    pageUrl: string | null,
    now = Date.now(),
  ): Visit | Promise<Visit> {
    const visitor = visitorOf(req, this.trust);
    if (settings.bot_detection.mode !== 'off') {
      const verdict = detectBot(req.headers);
      visitor.bot = verdict.bot;
      visitor.botScore = verdict.score;
      if (visitor.bot && settings.bot_detection.mode === 'drop')
        return { visitor, dropped: true, setCookies: [], restored: 0 };
    }
    const { setCookies, restored, cookies } = this.keep(req, settings, visitor.cookies, pageUrl);
    visitor.cookies = cookies;
    if (settings.click_id_restorer.enabled) {
      const clicks = restoreClickIds(pageUrl, visitor.cookies, now, { domain: cookieDomain(req, pageUrl) });
      setCookies.push(...clicks.setCookies);
      visitor.cookies = clicks.cookies;
    }
    const visit: Visit = { visitor, dropped: false, setCookies, restored };
    if (!settings.geo_headers.enabled) return visit;
    return this.place(visitor.ip).then((place) => {
      visitor.country = place?.country ?? null;
      visitor.region = place?.region ?? null;
      visitor.city = place?.city ?? null;
      return visit;
    });
  }

  /**
   * The cookie keeper alone, as the custom loader applies it: the loader is fetched before the site's scripts run,
   * so a lost `_ga` comes back before gtag would make a new one. `pageUrl` is the page (the Referer for the loader).
   */
  keep(
    req: RequestHead,
    settings: ContainerSettingsDto,
    cookies: Record<string, string>,
    pageUrl: string | null,
  ): { setCookies: string[]; restored: number; cookies: Record<string, string> } {
    if (!settings.cookie_keeper.enabled) return { setCookies: [], restored: 0, cookies };
    const kept = keepCookies(cookies, settings.cookie_keeper.cookies, { domain: cookieDomain(req, pageUrl) });
    return { setCookies: kept.setCookies, restored: kept.restored.length, cookies: kept.cookies };
  }

  /**
   * On the `upstream` and `sgtm` runtimes, the power-ups as request headers to the tagging server, under Stape's
   * names so that templates written for Stape work: bot detection on (either mode) sends `X-Device-Bot: true|false`
   * and `X-Device-Bot-Score` (0–100), and `X-Tagport-Bot: 1` for a bot; geo on sends `X-Geo-Country`,
   * `X-Geo-Region`, `X-Geo-City` (percent-encoded UTF-8) and `X-Gclb-Country`, the header Google's tagging server
   * reads for its Visitor Region variable; then the GTM preview header and the user id (requestPowerupHeaders). As
   * a flat list of names and values, like forwardedHeaders.
   */
  async upstreamHeaders(req: RequestHead, settings: ContainerSettingsDto, containerId: string): Promise<string[]> {
    const ip = clientAddress(req, this.trust);
    const headers = [
      ...platformRequestHeaders(req),
      ...requestPowerupHeaders(settings, { containerId, ip, headers: req.headers }, this.visitorIdKey),
    ];
    if (settings.bot_detection.mode !== 'off') {
      const { bot, score } = detectBot(req.headers);
      headers.push('x-device-bot', String(bot), 'x-device-bot-score', String(score));
      if (bot) headers.push('x-tagport-bot', '1');
    }
    if (settings.geo_headers.enabled) {
      const place = await this.place(ip);
      if (place) headers.push(...geoHeaders(place));
    }
    return headers;
  }

  private async place(ip: string): Promise<GeoPlace | null> {
    try {
      return await this.geo.place(ip);
    } catch (error) {
      this.onError(new Error('The geo database could not be read.', { cause: error }));
      return null;
    }
  }
}

function geoHeaders({ country, region, city }: GeoPlace): string[] {
  const headers = ['x-geo-country', country, 'x-gclb-country', country];
  if (region) headers.push('x-geo-region', encodeURIComponent(region));
  if (city) headers.push('x-geo-city', encodeURIComponent(city));
  return headers;
}

/**
 * The Domain for the cookies the power-ups set: the parent the container's hostname shares with the page's
 * (`sgtm.shop.example` serving `www.shop.example` → `shop.example`), so the site's own scripts see a restored `_ga`
 * or `_fbc`. Undefined (host-only) when they share no parent of two labels or more, as a container on a default
 * hostname and a shop on its own domain do, or when either is an IP address.
 */
export function cookieDomain(req: RequestHead, pageUrl: string | null): string | undefined {
  const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  let page: string;
  try {
    page = new URL(pageUrl ?? '').hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (!host || net.isIP(host) || net.isIP(page) || host === page) return undefined;
  const hostLabels = host.split('.');
  const pageLabels = page.split('.');
  let shared = 0;
  while (
    shared < Math.min(hostLabels.length, pageLabels.length) &&
    hostLabels[hostLabels.length - 1 - shared] === pageLabels[pageLabels.length - 1 - shared]
  )
    shared++;
  if (shared < 2 || shared === hostLabels.length) return undefined;
  return hostLabels.slice(-shared).join('.');
}
