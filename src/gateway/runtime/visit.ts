import type http from 'node:http';
import type { ContainerSettingsDto } from '../../modules/containers/settings.js';
import { detectBot, GeoLookup, keepCookies, restoreClickIds } from './powerups/index.js';
import type { Visitor } from './types.js';
import { clientAddress, type TrustedProxies, visitorOf } from './visitor.js';

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
    geoFile?: string,
  ) {
    this.geo = new GeoLookup(geoFile);
  }

  /** The visitor of a hit on the built-in runtime; `pageUrl` is the page the hit came from (for click ids). */
  async visit(
    req: http.IncomingMessage,
    settings: ContainerSettingsDto,
    pageUrl: string | null,
    now = Date.now(),
  ): Promise<Visit> {
    const visitor = visitorOf(req, this.trust);
    if (settings.bot_detection.mode !== 'off') {
      visitor.bot = detectBot(req.headers).bot;
      if (visitor.bot && settings.bot_detection.mode === 'drop')
        return { visitor, dropped: true, setCookies: [], restored: 0 };
    }
    const setCookies: string[] = [];
    let restored = 0;
    if (settings.cookie_keeper.enabled) {
      const kept = keepCookies(visitor.cookies, settings.cookie_keeper.cookies);
      setCookies.push(...kept.setCookies);
      restored = kept.restored.length;
      visitor.cookies = kept.cookies;
    }
    if (settings.click_id_restorer.enabled) {
      const clicks = restoreClickIds(pageUrl, visitor.cookies, now);
      setCookies.push(...clicks.setCookies);
      visitor.cookies = clicks.cookies;
    }
    if (settings.geo_headers.enabled) visitor.country = await this.country(visitor.ip);
    return { visitor, dropped: false, setCookies, restored };
  }

  /**
   * On the `upstream` runtime, the power-ups that make sense as request headers to the owner's tagging server:
   * `X-Tagport-Bot: 1` (bot detection on, in either mode) and `X-Geo-Country` (geo headers on, country known).
   * As a flat list of names and values, like forwardedHeaders.
   */
  async upstreamHeaders(req: http.IncomingMessage, settings: ContainerSettingsDto): Promise<string[]> {
    const headers: string[] = [];
    if (settings.bot_detection.mode !== 'off' && detectBot(req.headers).bot) headers.push('x-tagport-bot', '1');
    if (settings.geo_headers.enabled) {
      const country = await this.country(clientAddress(req, this.trust));
      if (country) headers.push('x-geo-country', country);
    }
    return headers;
  }

  private async country(ip: string): Promise<string | null> {
    try {
      return await this.geo.country(ip);
    } catch (error) {
      this.onError(new Error('The geo database could not be read.', { cause: error }));
      return null;
    }
  }
}
