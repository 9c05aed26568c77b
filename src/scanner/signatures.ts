/**
 * Our own signature rules: which URLs, code patterns, globals and cookies belong to which tracker,
 * and how ids are read from them. third-party-web covers vendors not listed here (see detect.ts).
 *
 * signatures/trackers.ts  the trackers, Google ids, and what inline code reveals (ids, consent commands, server URLs)
 * signatures/urls.ts      request URLs: loaders and hits, on any host for path-based rules
 * signatures/cookies.ts   cookie names and JS globals
 * signatures/cmps.ts      consent management platforms
 */
export { CMP_RULES, cmpForCode, cmpForCookie, cmpForUrl, type CmpRule } from './signatures/cmps.js';
export { GLOBAL_RULES, trackerForCookie } from './signatures/cookies.js';
export {
  TRACKERS,
  consentCommandsInCode,
  matchCode,
  serverUrlsInCode,
  trackerForGoogleId,
  type IdMatch,
  type TrackerInfo,
  type TrackerKey,
} from './signatures/trackers.js';
export { isGoogleHost, matchUrl, type HitRole, type UrlMatch } from './signatures/urls.js';
