/**
 * Our own signature rules: which URLs, code patterns, globals and cookies belong to which tracker,
 * and how ids are read from them. third-party-web covers vendors not listed here (see detect.ts).
 *
 * signatures/trackers.ts  the trackers and Google ids
 * signatures/code.ts      what inline code reveals (ids, consent commands, server and collection URLs)
 * signatures/holds.ts     scripts held back by consent platforms or delay plug-ins
 * signatures/urls.ts      request URLs: loaders and hits, on any host for path-based rules
 * signatures/cookies.ts   cookie names and JS globals
 * signatures/cmps.ts      consent management platforms
 */
export { CMP_RULES, cmpForCode, cmpForCookie, cmpForTcfId, cmpForUrl, type CmpRule } from './signatures/cmps.js';
export { GLOBAL_RULES, trackerForCookie } from './signatures/cookies.js';
export {
  META_EVENT_ID_NOTE,
  TRACKERS,
  trackerForGoogleId,
  type TrackerInfo,
  type TrackerKey,
} from './signatures/trackers.js';
export {
  ALL_CODE_RULES,
  CODE_RULES,
  collectionUrlsInCode,
  consentCommandsInCode,
  matchCode,
  serverUrlsInCode,
  type IdMatch,
} from './signatures/code.js';
export type { CodeRule } from './signatures/code-rule.js';
export { isGoogleHost, matchUrl } from './signatures/urls.js';
export type { HitRole, UrlMatch } from './signatures/url-match.js';
export { matchScriptAttributes, type AttributeMatch } from './signatures/attributes.js';
