import type http from 'node:http';
import type { GatewayRoute } from '../../modules/containers/traffic.js';
import type { RuntimeMeter } from './meter.js';
import { answer, errorAnswer, privateCacheControl, type RuntimeAnswer } from './replies.js';
import type { ScriptCache } from './script-cache.js';
import type { Powerups } from './visit.js';
import { parseCookies } from './visitor.js';

const DATA_LAYER_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/**
 * The custom loader: Google's tags served from the container's own hostname on its loader path (both runtimes),
 * fetched from Google and cached, with the cookie keeper applied before the site's scripts run.
 */
export class CustomLoader {
  constructor(
    private readonly scripts: ScriptCache,
    private readonly powerups: Powerups,
    private readonly meter: RuntimeMeter,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** gtm.js for the container's GTM id, gtag/js for one of its GA4 ids; no other id (no open script proxy). */
  async serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    route: GatewayRoute,
    query: string,
  ): Promise<RuntimeAnswer> {
    const params = new URLSearchParams(query);
    const id = params.get('id') ?? '';
    const script =
      id && id === route.gtmContainerId
        ? '/gtm.js'
        : route.settings.ga4_measurement_ids.includes(id)
          ? '/gtag/js'
          : null;
    if (!script) return errorAnswer(res, 404, 'unknown_tag', 'This container serves no Google tag with this id.');
    const upstream = new URLSearchParams({ id });
    const dataLayer = params.get('l');
    if (dataLayer && DATA_LAYER_NAME.test(dataLayer)) upstream.set('l', dataLayer);
    let fetched: Awaited<ReturnType<ScriptCache['get']>>;
    try {
      fetched = await this.scripts.get(`${script}?${upstream}`);
    } catch (error) {
      this.onError(new Error(`The custom loader could not fetch ${script} for ${id}.`, { cause: error }));
      return errorAnswer(res, 502, 'tag_unavailable', "Google's tag could not be fetched; try again shortly.");
    }
    const headers: http.OutgoingHttpHeaders = {
      'content-type': fetched.contentType,
      'cache-control': fetched.cacheControl,
    };
    const page = typeof req.headers.referer === 'string' ? req.headers.referer : null;
    const kept = this.powerups.keep(req, route.settings, parseCookies(req.headers.cookie), page);
    if (kept.restored) this.meter.count(route.containerId, 'cookiesRestored', kept.restored);
    if (kept.setCookies.length) {
      headers['set-cookie'] = kept.setCookies;
      // A response setting cookies must not be kept by a shared cache.
      headers['cache-control'] = privateCacheControl(fetched.cacheControl);
    }
    if (fetched.etag) headers.etag = fetched.etag;
    if (fetched.etag && req.headers['if-none-match'] === fetched.etag) return answer(res, 304, headers);
    headers['content-length'] = fetched.body.length;
    res.writeHead(fetched.status, headers).end(req.method === 'HEAD' ? undefined : fetched.body);
    return { status: fetched.status, requestBytes: 0, responseBytes: req.method === 'HEAD' ? 0 : fetched.body.length };
  }
}
