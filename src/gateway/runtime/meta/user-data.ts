import { createHash } from 'node:crypto';

const SHA256_HEX = /^[0-9a-f]{64}$/;

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Meta's email normalisation: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Meta's phone normalisation: digits only, with the country code and without leading zeros
 * (`+44 (0)844 412 4653` is not fixable; `+44 844 412 4653` and `0044 844 412 4653` → `448444124653`).
 */
export function normalisePhone(phone: string): string {
  return phone.replace(/\D/g, '').replace(/^0+/, '');
}

/** SHA-256 (hex) of the normalised value; a value already hashed (64 hex digits) is passed on, lower-cased. */
export function hashForMeta(value: string, normalise: (raw: string) => string): string | null {
  const trimmed = value.trim();
  if (SHA256_HEX.test(trimmed.toLowerCase())) return trimmed.toLowerCase();
  const normalised = normalise(trimmed);
  return normalised ? sha256(normalised) : null;
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
