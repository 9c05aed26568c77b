import type { RuntimeFindings } from './browser.ts';
import { Book } from './detect/book.ts';
import { judgeConsent } from './detect/consent.ts';
import { listCookies } from './detect/cookies.ts';
import { collectRuntime } from './detect/runtime.ts';
import { markServerSide, serverSideResult } from './detect/server-side.ts';
import { collectStatic } from './detect/static.ts';
import { registrableDomain } from './detect/third-party-web.ts';
import { listTrackers } from './detect/trackers.ts';
import { hostOf } from './detect/urls.ts';
import type { StaticFindings } from './parse.ts';
import type { ConsentResult, CookieResult, ServerSideResult, Tracker } from './schema.ts';
import type { WarningDraft } from './warnings.ts';

export { registrableDomain };

/**
 * Turns what stage 1 (static HTML) and stage 2 (browser) saw into findings: trackers, consent, server-side tagging
 * and cookies. Either input may be missing when its stage failed.
 */

export interface Detection {
  trackers: Tracker[];
  consent: ConsentResult;
  serverSide: ServerSideResult;
  cookies: CookieResult[];
  warnings: WarningDraft[];
}

export function detect(siteUrl: string, staticFindings: StaticFindings | null, runtime: RuntimeFindings | null): Detection {
  const book = new Book(registrableDomain(hostOf(siteUrl) ?? ''));
  const fromHtml = staticFindings ? collectStatic(book, staticFindings) : { codeCommands: [], serverUrls: [] };
  const fromBrowser = runtime ? collectRuntime(book, runtime) : { dataLayerCommands: [], serverUrls: [], warnings: [] };
  // Server URLs are applied once both stages are in: they mark trackers either stage may have found.
  markServerSide(book, [...fromHtml.serverUrls, ...fromBrowser.serverUrls]);
  const trackers = listTrackers(book, runtime);
  const consent = judgeConsent(book, runtime, { code: fromHtml.codeCommands, dataLayer: fromBrowser.dataLayerCommands }, trackers);
  return {
    trackers,
    consent: consent.result,
    serverSide: serverSideResult(book),
    cookies: listCookies(runtime, book),
    warnings: [...fromBrowser.warnings, ...consent.warnings],
  };
}
