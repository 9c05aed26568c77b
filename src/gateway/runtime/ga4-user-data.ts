import type { UserData } from './types.js';

/**
 * The user-provided data (enhanced conversions) on a GA4 `/g/collect` hit, in the two forms it arrives in:
 *
 * - `em`, written by gtag.js from `gtag('set', 'user_data', {...})`: `tv.1~em.<hash>~pn.<hash>~fn0.<hash>~ln0.<hash>
 *   ~sa0.<hash>~ct0.<city>~rg0.<region>~pc0.<postal code>~co0.<country>`. Email, phone, names and street come as
 *   SHA-256 (unpadded base64url, or hex when the site hashed them itself); city, region, postal code and country in
 *   clear, URI-encoded. A value `e<digits>` is gtag's error code for a field it could not read.
 * - `ep.user_data.*` (also `epn.`, `up.`, `upn.`), sent by GTM tags or sites that put a `user_data` parameter on the
 *   event, in GA4's names: `email` / `sha256_email_address`, `phone_number`, `address.first_name`, …, in clear or
 *   `sha256_`-prefixed hashes.
 *
 * Google hashes a phone number in E.164 with its `+`; Meta matches the hash of the digits alone, so a phone hashed by
 * Google's recipe (`pn`, `sha256_phone_number`) is left out rather than sent where it can never match.
 */

type Field = keyof UserData;

/** gtag's `em` keys (address fields carry the address's index, `fn0`); street has no counterpart here. */
const GTAG_KEYS: Readonly<Record<string, Field>> = {
  em: 'email',
  pn: 'phone',
  fn: 'firstName',
  ln: 'lastName',
  ct: 'city',
  rg: 'region',
  pc: 'postalCode',
  co: 'country',
};
const GTAG_HASHED = new Set<Field>(['email', 'phone', 'firstName', 'lastName']);

/** GA4's `user_data` names, with the spellings sites commonly use besides. */
const GA4_NAMES: Readonly<Record<string, Field>> = {
  email: 'email',
  email_address: 'email',
  phone: 'phone',
  phone_number: 'phone',
  first_name: 'firstName',
  last_name: 'lastName',
  city: 'city',
  region: 'region',
  state: 'region',
  postal_code: 'postalCode',
  zip: 'postalCode',
  country: 'country',
  external_id: 'externalId',
};

/** `ep.user_data.address.0.sha256_first_name` → `sha256_`, `first_name`. */
const USER_DATA_PARAM = /^(?:ep|epn|up|upn)\.user_data\.(?:address\.(?:\d{1,2}\.)?)?(sha256_)?([a-z_]{2,20})$/;
const GTAG_ENTRY = /^([a-z]{2})\d{0,2}$/;
const GTAG_ERROR = /^e\d{1,5}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;
/** 32 bytes in base64 (either alphabet), padded or not. */
const SHA256_BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/;
/** Longer values are no customer data; Google stops reading `em` at 20000 characters. */
const MAX_VALUE_LENGTH = 256;
const MAX_GTAG_LENGTH = 20_000;

/** A SHA-256 in hex or base64/base64url as lower-case hex; null for anything else. */
export function sha256Hex(value: string): string | null {
  if (SHA256_HEX.test(value)) return value.toLowerCase();
  if (!SHA256_BASE64.test(value)) return null;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes.toString('hex') : null;
}

/** The customer data of a hit: `user_data` parameters first, then gtag's `em`, then `uid` as the external id. */
export function userDataOf(params: URLSearchParams): UserData {
  const userData: UserData = {};
  for (const [key, raw] of params) {
    const match = USER_DATA_PARAM.exec(key);
    const field = match ? GA4_NAMES[match[2]] : undefined;
    if (match && field) setFirst(userData, field, match[1] ? googleHash(field, raw) : clear(raw));
  }
  for (const [field, value] of gtagEntries(params.get('em'))) setFirst(userData, field, value);
  setFirst(userData, 'externalId', clear(params.get('uid')));
  return userData;
}

/** The first value found for a field wins (a module-level function: a closure per hit cost a measurable share). */
function setFirst(userData: UserData, field: Field, value: string | null): void {
  if (value !== null && userData[field] === undefined) userData[field] = value;
}

/** Whether a hit parameter carries customer data (what goes when a vendor may not receive it). */
export function isUserDataParam(key: string): boolean {
  return key === 'em' || USER_DATA_PARAM.test(key);
}

function gtagEntries(em: string | null): Array<[Field, string]> {
  if (!em || em.length > MAX_GTAG_LENGTH) return [];
  const [version, ...entries] = em.split('~');
  if (version !== 'tv.1') return [];
  const found: Array<[Field, string]> = [];
  for (const entry of entries) {
    const dot = entry.indexOf('.');
    const field = GTAG_KEYS[GTAG_ENTRY.exec(entry.slice(0, dot))?.[1] ?? ''];
    const raw = dot > 0 ? decoded(entry.slice(dot + 1)) : null;
    if (!field || raw === null || GTAG_ERROR.test(raw)) continue;
    const value = GTAG_HASHED.has(field) ? googleHash(field, raw) : clear(raw);
    if (value !== null) found.push([field, value]);
  }
  return found;
}

/** A value Google's tag or GA4's `sha256_` names say is hashed: its hex, or null when it is not a SHA-256. */
function googleHash(field: Field, value: string): string | null {
  if (field === 'phone') return null;
  return sha256Hex(value.trim());
}

function clear(value: string | null): string | null {
  const trimmed = value?.trim();
  return trimmed && trimmed.length <= MAX_VALUE_LENGTH ? trimmed : null;
}

function decoded(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
