import { getPattern } from 'isbot';
import {
  AUTOMATION_HEADERS,
  BOT_SCORES,
  FETCH_METADATA_BROWSER,
  HEADLESS,
  PLAIN_BROWSER,
} from '../runtime/powerups/bot-detection.js';

// The http-level maps of nginx.conf that classify each request: whether nginx may pass it on itself, whether it is a
// bot, and what the platform's own requests say of themselves.

/**
 * A request target nginx may pass as it is: the characters the URL parser keeps unchanged, no dot segment
 * (plain or percent-encoded) and no lone trailing `?`: exactly the targets the Node gateway forwards unparsed.
 * Anything else, every chunked request body, and every request whose Host is not exactly the host nginx routed
 * by (an absolute-form target naming another, a port that is not a number) goes to Node, which normalises or
 * refuses it (src/gateway/host.ts, docs/gateway-routing.md). So do `/healthz`, ACME challenges and the container's
 * custom loader (`$tagport_loader`, the container's own). A passed target goes under the upstream's base path as it
 * came, as the Node gateway appends a plain target (upstreamPath).
 */
export const TARGET_MAPS = `map $request_uri $tagport_plain_target {
    default 0;
    "~*(/\\.|%2e|\\?$)" 0;
    "~^/[A-Za-z0-9_.~!$&()*+,;=:@/%?-]*$" 1;
  }
  map $http_transfer_encoding $tagport_unframed { "" 0; default 1; }
  map "$host $http_host" $tagport_same_host { "~*^(\\S*) \\1\\.?(?::\\d{1,5})?$" 1; default 0; }
  map "$tagport_plain_target$tagport_unframed$tagport_same_host" $tagport_native { "101" 1; default 0; }
  map $uri $tagport_node_path { "~^/healthz$" 1; "~^/\\.well-known/acme-challenge/" 1; default 0; }
  map "$uri $tagport_loader" $tagport_loader_hit { "~^(\\S+) \\1$" 1; default 0; }
  map "$tagport_native$tagport_node_path$tagport_loader_hit" $tagport_here { "100" 1; default 0; }`;

/**
 * Bot detection as detectBot() does it, in nginx maps: the signals as one key of 0s and 1s (no, a headless or a
 * listed user agent; an automation header; no Accept-Language; a current browser's user agent; no fetch metadata),
 * the strongest deciding the score. A current browser's plain user agent (PLAIN_BROWSER) is not a bot and is not
 * matched against isbot's pattern, which costs nginx ~20 µs a request. isbot's pattern is JavaScript: PCRE refuses
 * a hyphen after a class escape
 * (`[\d-.]`) unless it is escaped; nothing else in it differs.
 */
export function botMaps(): string {
  const isbot = getPattern().source.replace(/(\\[wdsWDS])-/g, '$1\\-');
  const automation = AUTOMATION_HEADERS.map((name) => `$http_${name.replaceAll('-', '_')}`).join('');
  const signals = '$tagport_bot_agent$tagport_automation$tagport_no_language$tagport_fetch_browser$tagport_no_fetch';
  const bot = '"~^(1|01|001)"';
  return `map $http_user_agent $tagport_bot_agent { "" 1; "~*${HEADLESS.source}" 1; "~${PLAIN_BROWSER.source}" 0;
    "~*${isbot}" 1; default 0; }
  map "${automation}" $tagport_automation { "" 0; default 1; }
  map $http_accept_language $tagport_no_language { "" 1; default 0; }
  map $http_user_agent $tagport_fetch_browser { "~${FETCH_METADATA_BROWSER.source}" 1; default 0; }
  map $http_sec_fetch_mode $tagport_no_fetch { "" 1; default 0; }
  map "${signals}" $tagport_bot_score { "~^1" ${BOT_SCORES.agent}; "~^01" ${BOT_SCORES.automation};
    "~^001" ${BOT_SCORES.noLanguage}; "00011" ${BOT_SCORES.noFetchMetadata}; default 0; }
  map "${signals}" $tagport_device_bot { ${bot} true; default false; }
  map "${signals}" $tagport_bot { ${bot} 1; default ""; }`;
}

/**
 * What the platform's own requests (scheduled, delayed) say of themselves, passed on only when they carry its token;
 * a visitor's X-Tagport-Schedule is dropped like any power-up header (as the Node gateway does).
 */
export function platformMaps(token: string): string {
  const passed = (header: string, variable: string) =>
    `map "$tagport_platform:$http_${header}" $${variable} { "~^1:(?<value>.+)$" $value; default ""; }`;
  return `map $http_x_tagport_platform $tagport_platform { "${token}" 1; default 0; }
  ${passed('x_tagport_schedule', 'tagport_schedule')}
  ${passed('x_tagport_delayed_by', 'tagport_delayed_by')}`;
}
