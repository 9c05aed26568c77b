import type { RuntimeRequest } from '../capture-types.js';

/**
 * Account ids read from any vendor's requests without a rule of its own: the values of parameters whose names
 * vendors document for an account, advertiser, site, project, app, pixel, tag or property (in the query string, in a
 * form or JSON body, or in base64-encoded JSON inside either), an id-like parameter whose value repeats across
 * requests, and the token in a cookie name. Visitor and session ids, timestamps and cache-busters are not account ids.
 */

/** Parameter names, compared lower-case with `_` and `-` removed. The one list of them. */
export const ID_PARAMETER_NAMES = new Set([
  'account',
  'accountid',
  'accountkey',
  'acct',
  'advertiser',
  'advertiserid',
  'app',
  'appid',
  'appkey',
  'apikey',
  'clientkey',
  'containerid',
  'orgid',
  'organization',
  'organizationid',
  'partner',
  'partnerid',
  'pixel',
  'pixelid',
  'project',
  'projectid',
  'projectkey',
  'property',
  'propertyid',
  'publickey',
  'site',
  'siteid',
  'sitekey',
  'tag',
  'tagid',
  'tid',
  'trackerid',
  'trackingid',
  'websiteid',
  'writekey',
]);

/** Id-like names that carry a visitor's, a session's or an event's id: never an account's, even when repeated. */
const VISITOR_NAMES = new Set([
  'anonid',
  'anonymousid',
  'cid',
  'clientid',
  'deviceid',
  'did',
  'eid',
  'eventid',
  'guid',
  'messageid',
  'orderid',
  'pageid',
  'pageviewid',
  'pvid',
  'requestid',
  'rid',
  'session',
  'sessionid',
  'sid',
  'transactionid',
  'uid',
  'userid',
  'uuid',
  'vid',
  'visitorid',
]);

const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$/;
const TIMESTAMP = /^1\d{9}(\d{3})?$/;

const normalised = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

export function isIdParameter(name: string): boolean {
  return ID_PARAMETER_NAMES.has(normalised(name));
}

/** A name an undocumented account id may go under (`id`, `token`, `…id`, `…key`): taken when its value repeats. */
function mayHoldId(name: string): boolean {
  const bare = normalised(name);
  if (bare.length > 12 || VISITOR_NAMES.has(bare)) return false;
  return bare === 'token' || bare === 'k' || bare.endsWith('id') || bare.endsWith('key');
}

/** A value that can be an account id: short, plain characters, not a Unix time, not a boolean. */
export function looksLikeId(value: string): boolean {
  return ID_SHAPE.test(value) && !TIMESTAMP.test(value) && !/^(true|false|null|undefined)$/i.test(value);
}

/**
 * Name/value pairs of a request: its query string and its body read as a form or as JSON (two levels deep), with
 * the pairs of any value that is base64-encoded JSON (beacon bodies, `data=` parameters).
 */
export function parametersOf(request: Pick<RuntimeRequest, 'url' | 'postData'>): Array<[string, string]> {
  const pairs = [...queryParameters(request.url), ...bodyParameters(request.postData)];
  return [...pairs, ...pairs.flatMap(([, value]) => jsonParameters(fromBase64(value)))];
}

function queryParameters(url: string): Array<[string, string]> {
  try {
    return [...new URL(url).searchParams];
  } catch {
    return [];
  }
}

const FORM = /^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/;
const BASE64 = /^[A-Za-z0-9+/_-]{16,}={0,2}$/;

function bodyParameters(body: string | null): Array<[string, string]> {
  const trimmed = body?.trim() ?? '';
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return jsonParameters(trimmed);
  if (BASE64.test(trimmed)) return jsonParameters(fromBase64(trimmed));
  return FORM.test(trimmed) ? [...new URLSearchParams(trimmed)] : [];
}

/** The JSON text a base64 (or base64url) value encodes; empty when it encodes something else. */
function fromBase64(value: string): string {
  const compact = value.trim().replace(/ /g, '+');
  if (!BASE64.test(compact)) return '';
  const decoded = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  return /^\s*[[{]/.test(decoded) ? decoded : '';
}

function jsonParameters(text: string): Array<[string, string]> {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const pairs: Array<[string, string]> = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 2 || !value || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (typeof item === 'string' || typeof item === 'number') pairs.push([key, String(item)]);
      else visit(item, depth + 1);
    }
  };
  for (const item of Array.isArray(parsed) ? parsed.slice(0, 5) : [parsed]) visit(item, 0);
  return pairs;
}

/**
 * The account ids a vendor's requests carry, with the parameter that held each: under a documented name at once,
 * under another id-like name when the same value came in at least two requests (a cache-buster or a per-request id
 * never does).
 */
export function idsInRequests(requests: Array<Pick<RuntimeRequest, 'url' | 'postData'>>): Map<string, string> {
  const ids = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const request of requests) {
    const pairs = new Map(
      parametersOf(request).map(([name, value]) => [`${normalised(name)}=${value}`, [name, value]]),
    );
    for (const [key, [name, value]] of pairs) {
      if (!looksLikeId(value) || ids.has(value)) continue;
      const times = (seen.get(key) ?? 0) + 1;
      seen.set(key, times);
      if (isIdParameter(name) || (mayHoldId(name) && times >= 2)) ids.set(value, name);
    }
  }
  return ids;
}

/** The token of a cookie name such as `_hjSessionUser_1234567` or `_vnd_k9F3xQ72_ses`, after its prefix. */
export function idInCookieName(name: string): string | null {
  const segments = name.split(/[_.]/).filter(Boolean).slice(1);
  return segments.find((part) => /^[A-Za-z0-9-]{5,40}$/.test(part) && /\d/.test(part) && !TIMESTAMP.test(part)) ?? null;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const TOKEN = /^[A-Za-z0-9_.:|-]{8,128}$/;

/**
 * A value written to storage that holds an identifier (a visitor, device or session id): a UUID, or a token without
 * spaces with a run of 8+ letters and digits mixed (`k2j3h4g5f6d`) or of 12+ digits that is not a Unix time; for
 * JSON, any string or number in it (three levels deep). Preferences (`dark`, `en-US`, `true`, `3.7.1`,
 * `{"theme":"dark"}`, `jquery-3.7.1`) hold none.
 */
export function holdsIdentifier(value: string): boolean {
  const trimmed = value.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      return leaves(JSON.parse(trimmed), 0).some(isIdentifier);
    } catch {
      /* not JSON: judged as text */
    }
  }
  return isIdentifier(trimmed);
}

function isIdentifier(value: string): boolean {
  if (UUID.test(value) && value.length <= 128) return true;
  if (!TOKEN.test(value)) return false;
  return (value.match(/[A-Za-z0-9]{8,}/g) ?? []).some(
    (run) => (/[A-Za-z]/.test(run) && /\d/.test(run)) || (/^\d{12,}$/.test(run) && !TIMESTAMP.test(run)),
  );
}

function leaves(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (depth >= 3 || value === null || typeof value !== 'object') return [];
  return Object.values(value as Record<string, unknown>).flatMap((item) => leaves(item, depth + 1));
}
