/** 400 days: the longest lifetime browsers accept for a cookie (RFC 6265bis caps Max-Age there). */
export const MAX_COOKIE_AGE_SECONDS = 400 * 86_400;

export interface CookieOptions {
  /** HttpOnly unless the site's scripts must read the cookie (`_ga`, `_fbp`, `_fbc`). */
  httpOnly: boolean;
  /** The cookie's Domain attribute (e.g. `example.com` to share it with `www.example.com`); host-only when absent. */
  domain?: string;
  maxAgeSeconds?: number;
}

// RFC 6265 cookie-octet: printable ASCII except space, double quote, comma, semicolon and backslash.
const COOKIE_OCTETS = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A first-party Set-Cookie value: Path=/, Secure, SameSite=Lax, 400 days unless told; values outside cookie-octet are percent-encoded. */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  if (!COOKIE_NAME.test(name)) throw new Error(`Not a valid cookie name: ${name}`);
  const encoded = COOKIE_OCTETS.test(value) ? value : encodeURIComponent(value);
  const parts = [
    `${name}=${encoded}`,
    `Max-Age=${options.maxAgeSeconds ?? MAX_COOKIE_AGE_SECONDS}`,
    'Path=/',
    ...(options.domain ? [`Domain=${options.domain}`] : []),
    'Secure',
    ...(options.httpOnly ? ['HttpOnly'] : []),
    'SameSite=Lax',
  ];
  return parts.join('; ');
}
