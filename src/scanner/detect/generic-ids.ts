import type { RuntimeRequest } from '../capture-types.js';

/**
 * Account ids read from any vendor's requests without a rule of its own: the values of parameters whose names
 * vendors document for an account, advertiser, site, project, app, pixel, tag or property (in the query string or in
 * a form or JSON body). Visitor and session ids, timestamps and cache-busters are not account ids.
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

const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$/;
const TIMESTAMP = /^1\d{9}(\d{3})?$/;

const normalised = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

export function isIdParameter(name: string): boolean {
  return ID_PARAMETER_NAMES.has(normalised(name));
}

/** A value that can be an account id: short, plain characters, not a Unix time, not a boolean. */
export function looksLikeId(value: string): boolean {
  return ID_SHAPE.test(value) && !TIMESTAMP.test(value) && !/^(true|false|null|undefined)$/i.test(value);
}

/** Name/value pairs of a request: its query string, then its body read as a form or as JSON (two levels deep). */
export function parametersOf(request: Pick<RuntimeRequest, 'url' | 'postData'>): Array<[string, string]> {
  let query: Array<[string, string]> = [];
  try {
    query = [...new URL(request.url).searchParams];
  } catch {
    /* not a URL */
  }
  return [...query, ...bodyParameters(request.postData)];
}

function bodyParameters(body: string | null): Array<[string, string]> {
  if (!body) return [];
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return jsonParameters(trimmed);
  if (/^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/.test(trimmed)) return [...new URLSearchParams(trimmed)];
  return [];
}

function jsonParameters(text: string): Array<[string, string]> {
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

/** The account ids a vendor's requests carry under documented parameter names, with the parameter that held each. */
export function idsInRequests(requests: Array<Pick<RuntimeRequest, 'url' | 'postData'>>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const request of requests) {
    for (const [name, value] of parametersOf(request)) {
      if (isIdParameter(name) && looksLikeId(value) && !ids.has(value)) ids.set(value, name);
    }
  }
  return ids;
}
