import type { RuntimeFindings } from './browser.js';
import { Book } from './detect/book.js';
import { judgeConsent } from './detect/consent.js';
import { listCookies } from './detect/cookies.js';
import { resolveSharedApis } from './detect/families.js';
import { collectRuntime } from './detect/runtime.js';
import { markServerSide, serverSideResult } from './detect/server-side.js';
import { collectStatic } from './detect/static.js';
import { readTagManagerConfigs } from './detect/tag-manager-configs.js';
import { registrableDomain } from './detect/registrable-domain.js';
import { addFallbackIds } from './detect/third-party-web.js';
import { listTrackers } from './detect/trackers.js';
import { listUnlistedTrackers } from './detect/unlisted.js';
import { hostOf } from './detect/urls.js';
import type { StaticFindings } from './parse.js';
import type { ConsentResult, CookieResult, Language, ServerSideResult, Tracker } from './schema.js';
import type { TagManagerConfig } from './schema-tag-managers.js';
import type { UnlistedTracker } from './schema-unlisted.js';
import type { WarningDraft } from './warnings.js';

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
  /** What the page's GTM containers are configured to fire; undefined without a browser stage. */
  tagManagerConfigs?: TagManagerConfig[];
  /** Third parties no rule names that behaved like trackers; undefined without a browser stage. */
  unlistedTrackers?: UnlistedTracker[];
}

export function detect(
  siteUrl: string,
  staticFindings: StaticFindings | null,
  runtime: RuntimeFindings | null,
  language: Language = 'en',
): Detection {
  const book = new Book(registrableDomain(hostOf(siteUrl) ?? ''));
  const fromHtml = staticFindings ? collectStatic(book, staticFindings, siteUrl) : { codeCommands: [], serverUrls: [] };
  const fromBrowser = runtime ? collectRuntime(book, runtime) : { dataLayerCommands: [], serverUrls: [], warnings: [] };
  // Server URLs are applied once both stages are in: they mark trackers either stage may have found.
  markServerSide(book, [...fromHtml.serverUrls, ...fromBrowser.serverUrls]);
  resolveSharedApis(book);
  addFallbackIds(book, runtime?.cookies ?? []);
  const trackers = listTrackers(book, runtime);
  const consent = judgeConsent(
    book,
    runtime,
    { code: fromHtml.codeCommands, dataLayer: fromBrowser.dataLayerCommands },
    trackers,
    language,
  );
  return {
    trackers,
    consent: consent.result,
    serverSide: serverSideResult(book),
    cookies: listCookies(runtime, book),
    warnings: [...fromBrowser.warnings, ...consent.warnings],
    tagManagerConfigs: readTagManagerConfigs(runtime, trackers),
    unlistedTrackers: runtime ? listUnlistedTrackers(book, runtime) : undefined,
  };
}
