import { createHash } from 'node:crypto';
import type { UserData } from '../types.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A value that can be no email (no `@` between a name and a dotted domain) normalises to nothing. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NOT_A_LETTER = /[^\p{L}\p{M}]/gu;
const NOT_A_LETTER_OR_DIGIT = /[^\p{L}\p{M}\p{N}]/gu;

/** Meta's email normalisation: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  return EMAIL.test(normalised) ? normalised : '';
}

/**
 * Meta's phone normalisation: digits only, with the country code and without leading zeros
 * (`+44 (0)844 412 4653` is not fixable; `+44 844 412 4653` and `0044 844 412 4653` → `448444124653`). Fewer than 7
 * or more than 15 digits (E.164's most) is no phone number.
 */
export function normalisePhone(phone: string): string {
  const digits = phone.replace(/\D/g, '').replace(/^0+/, '');
  return digits.length >= 7 && digits.length <= 15 ? digits : '';
}

/** Meta's name normalisation (fn, ln): lower case, letters only (accented ones kept, UTF-8), no punctuation. */
export function normaliseName(name: string): string {
  return name.normalize('NFC').toLowerCase().replace(NOT_A_LETTER, '');
}

/** Meta's city normalisation (ct): lower case, letters only, no spaces (`Menlo Park` → `menlopark`). */
export const normaliseCity = normaliseName;

/**
 * Meta's state normalisation (st): the 2-letter code in lower case (`CA` → `ca`); outside the US, the region in lower
 * case without punctuation or spaces.
 */
export function normaliseRegion(region: string): string {
  return region.normalize('NFC').toLowerCase().replace(NOT_A_LETTER_OR_DIGIT, '');
}

/** Meta's zip normalisation (zp): lower case without spaces or dashes; a US ZIP+4 keeps its first 5 digits. */
export function normalisePostalCode(postalCode: string): string {
  const trimmed = postalCode.trim();
  const zip = /^(\d{5})-\d{4}$/.exec(trimmed)?.[1] ?? trimmed;
  return zip.normalize('NFC').toLowerCase().replace(NOT_A_LETTER_OR_DIGIT, '');
}

/** Meta's country normalisation: the ISO 3166-1 alpha-2 code in lower case; anything else (`USA`) is none. */
export function normaliseCountry(country: string): string {
  const code = country.trim().toLowerCase();
  return /^[a-z]{2}$/.test(code) ? code : '';
}

/** An external id is the site's own: trimmed, its case kept. */
export function normaliseExternalId(id: string): string {
  return id.trim();
}

/** SHA-256 (hex) of the normalised value; a value already hashed (64 hex digits) is passed on, lower-cased. */
export function hashForMeta(value: string, normalise: (raw: string) => string): string | null {
  const trimmed = value.trim();
  if (SHA256_HEX.test(trimmed.toLowerCase())) return trimmed.toLowerCase();
  const normalised = normalise(trimmed);
  return normalised ? sha256(normalised) : null;
}

/** Meta's customer information parameters that are SHA-256 hashes, each an array as the Conversions API takes it. */
export interface HashedCustomerInformation {
  em?: string[];
  ph?: string[];
  fn?: string[];
  ln?: string[];
  ct?: string[];
  st?: string[];
  zp?: string[];
  country?: string[];
  external_id?: string[];
}

const CUSTOMER_FIELDS: ReadonlyArray<[keyof UserData, keyof HashedCustomerInformation, (raw: string) => string]> = [
  ['email', 'em', normaliseEmail],
  ['phone', 'ph', normalisePhone],
  ['firstName', 'fn', normaliseName],
  ['lastName', 'ln', normaliseName],
  ['city', 'ct', normaliseCity],
  ['region', 'st', normaliseRegion],
  ['postalCode', 'zp', normalisePostalCode],
  ['country', 'country', normaliseCountry],
  ['externalId', 'external_id', normaliseExternalId],
];

/** The keys of Meta's `user_data` that hold SHA-256 digests (what a log shows only by name). */
export const HASHED_CUSTOMER_KEYS: ReadonlyArray<keyof HashedCustomerInformation> = CUSTOMER_FIELDS.map(
  ([, key]) => key,
);

/**
 * The event's customer data as Meta's hashed parameters: each value normalised as Meta requires and hashed (or passed
 * on when already a SHA-256 in hex); a value that normalises to nothing is left out. The country is the customer's,
 * else the one geolocated from the visitor's IP.
 */
export function hashedCustomerInformation(userData: UserData, ipCountry: string | null): HashedCustomerInformation {
  const information: HashedCustomerInformation = {};
  for (const [field, key, normalise] of CUSTOMER_FIELDS) {
    const candidates = field === 'country' ? [userData.country, ipCountry] : [userData[field]];
    for (const candidate of candidates) {
      const hashed = typeof candidate === 'string' ? hashForMeta(candidate, normalise) : null;
      if (hashed) {
        information[key] = [hashed];
        break;
      }
    }
  }
  return information;
}

/** Meta's click id from an `fbclid`: `fb.1.<ms since epoch>.<fbclid>` (subdomain index 1, the click's time). */
export function fbcFromFbclid(fbclid: string, clickedAtMs: number): string {
  return `fb.1.${Math.floor(clickedAtMs)}.${fbclid}`;
}

/** The `fbclid` query parameter of a page URL, when there is one. */
export function fbclidOf(pageUrl: string | null): string | null {
  if (!pageUrl) return null;
  try {
    return new URL(pageUrl).searchParams.get('fbclid') || null;
  } catch {
    return null;
  }
}
