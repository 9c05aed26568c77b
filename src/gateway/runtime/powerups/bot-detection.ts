import { isbotMatch } from 'isbot';

export type BotReason =
  | 'missing_user_agent'
  | 'known_bot_user_agent'
  | 'headless_browser'
  | 'automation_header'
  | 'missing_accept_language';

export interface BotVerdict {
  bot: boolean;
  /** Why the request looks automated; null for a human-looking request. */
  reason: BotReason | null;
  /** The part of the user agent or the header that gave it away, for the logs. */
  evidence: string | null;
}

/** Request headers by lower-case name, as Node gives them. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** Headless and automated browsers' user agents (also matched by the native data plane: src/gateway/native/). */
export const HEADLESS = /\b(HeadlessChrome|PhantomJS|SlimerJS|Puppeteer|Playwright|Selenium|WebDriver)\b/i;
// Headers that automation proxies and scripting tools add and browsers never send.
export const AUTOMATION_HEADERS = ['x-selenium', 'x-puppeteer', 'x-playwright'];

function header(headers: RequestHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

/**
 * Bot detection: isbot's list of crawler and tool user agents, then request signals browsers never show (headless
 * engines, automation headers, no Accept-Language: every browser sends one with page and beacon requests).
 */
export function detectBot(headers: RequestHeaders): BotVerdict {
  const userAgent = header(headers, 'user-agent');
  if (!userAgent) return { bot: true, reason: 'missing_user_agent', evidence: null };
  const headless = HEADLESS.exec(userAgent);
  if (headless) return { bot: true, reason: 'headless_browser', evidence: headless[0] };
  const known = isbotMatch(userAgent);
  if (known) return { bot: true, reason: 'known_bot_user_agent', evidence: known };
  const automation = AUTOMATION_HEADERS.find((name) => header(headers, name));
  if (automation) return { bot: true, reason: 'automation_header', evidence: automation };
  if (!header(headers, 'accept-language')) return { bot: true, reason: 'missing_accept_language', evidence: null };
  return { bot: false, reason: null, evidence: null };
}
