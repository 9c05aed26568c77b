/**
 * The power-ups the runtime applies per container, as pure functions (geo reads a database file once). Each one's
 * contract is on its declaration; the runtime calls them in this order on a hit: detectBot → (drop or mark) →
 * keepCookies → restoreClickIds → GeoLookup.place → per vendor anonymize → send.
 */
export { anonymize, anonymizeGa4Params, truncateIp, type AnonymizerRules } from './anonymizer.js';
export {
  BOT_SCORE_THRESHOLD,
  type BotReason,
  type BotVerdict,
  detectBot,
  type RequestHeaders,
} from './bot-detection.js';
export {
  CLICK_ID_COOKIES,
  CLICK_ID_NAMES,
  keptClickIds,
  restoreClickIds,
  type ClickIdName,
  type ClickIdRestoreResult,
} from './click-ids.js';
export { BACKUP_PREFIX, keepCookies, type CookieKeeperOptions, type CookieKeeperResult } from './cookie-keeper.js';
export { MAX_COOKIE_AGE_SECONDS, setCookie, type CookieOptions } from './cookies.js';
export { DBIP_CITY_FILES, type GeoFiles, GeoLookup, type GeoPlace, isPublicAddress } from './geo.js';
