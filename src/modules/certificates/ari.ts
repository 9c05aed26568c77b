import { X509Certificate } from 'node:crypto';

/**
 * ACME Renewal Information (RFC 9773): the certificate's identifier at the CA, the window the CA suggests for its
 * renewal, and how long to wait before asking again. No I/O here; AcmeIssuer.renewalInfo asks the CA.
 */

/** A suggested window (RFC 9773 §4.2) as the CA sent it, checked. */
export interface RenewalWindow {
  start: Date;
  end: Date;
  explanationUrl: string | null;
}

/**
 * How long to wait before asking the CA again: its Retry-After, never sooner than an hour (thousands of certificates
 * each asking every minute would be a load of our own making) nor later than a day (RFC 9773 §4.3.2 suggests a day at
 * most, so a window moved before a mass revocation is seen within it). Without a usable Retry-After: six hours after
 * an answer (RFC 9773's example), an hour after a failure.
 */
export const RENEWAL_INFO_RECHECK_MS = { min: 3_600_000, max: 86_400_000, answered: 6 * 3_600_000, failed: 3_600_000 };

/** Retry-After in seconds or as an HTTP date, within RENEWAL_INFO_RECHECK_MS; `fallback` when absent or unreadable. */
export function renewalInfoRecheckMs(retryAfter: string | undefined, fallback: number, now = Date.now()): number {
  const value = retryAfter?.trim() ?? '';
  const wanted = /^\d+$/.test(value) ? Number(value) * 1000 : value ? Date.parse(value) - now : Number.NaN;
  if (!Number.isFinite(wanted)) return fallback;
  return Math.min(RENEWAL_INFO_RECHECK_MS.max, Math.max(RENEWAL_INFO_RECHECK_MS.min, wanted));
}

/** A RenewalInfo object (RFC 9773 §4.2) read from the CA's answer; null when it is not one (treated as no answer). */
export function parseRenewalInfo(body: unknown): RenewalWindow | null {
  if (typeof body !== 'object' || body === null) return null;
  const { suggestedWindow, explanationURL } = body as { suggestedWindow?: unknown; explanationURL?: unknown };
  if (typeof suggestedWindow !== 'object' || suggestedWindow === null) return null;
  const { start, end } = suggestedWindow as { start?: unknown; end?: unknown };
  if (typeof start !== 'string' || typeof end !== 'string') return null;
  const [startAt, endAt] = [Date.parse(start), Date.parse(end)];
  // An end at or before the start is invalid: the client acts as if it had no answer (§4.2).
  if (!Number.isFinite(startAt) || !Number.isFinite(endAt) || endAt <= startAt) return null;
  return { start: new Date(startAt), end: new Date(endAt), explanationUrl: httpsUrl(explanationURL) };
}

/** The explanation page is shown to users: only an http(s) URL of reasonable length is kept. */
function httpsUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** A uniformly random time in the window (§4.2). One in the past means renew now. */
export function timeInWindow({ start, end }: { start: Date; end: Date }, random: () => number = Math.random): Date {
  return new Date(start.getTime() + (end.getTime() - start.getTime()) * random());
}

/**
 * The certificate's identifier at the CA (RFC 9773 §4.1): the base64url of its Authority Key Identifier's
 * keyIdentifier, a dot, and the base64url of its serial number's DER content octets (a leading zero octet kept: serial
 * 0x87654321 is `AIdlQyE`). Of the first certificate of a PEM chain; throws when it has no keyIdentifier.
 */
export function certId(certificatePem: string): string {
  const der = new X509Certificate(certificatePem).raw;
  const tbs = childrenOf(der, childrenOf(der, readTlv(der, 0))[0]);
  const serial = tbs[tbs[0].tag === 0xa0 ? 1 : 0];
  if (serial?.tag !== 0x02) throw new Error('The certificate has no serial number.');
  const keyIdentifier = authorityKeyIdentifier(der, tbs);
  if (!keyIdentifier) throw new Error('The certificate has no authority key identifier.');
  return `${keyIdentifier.toString('base64url')}.${der.subarray(serial.start, serial.end).toString('base64url')}`;
}

/** id-ce-authorityKeyIdentifier, 2.5.29.35, as the content of its DER OBJECT IDENTIFIER. */
const AKI_OID = Buffer.from([0x55, 0x1d, 0x23]);

function authorityKeyIdentifier(der: Buffer, tbs: Tlv[]): Buffer | null {
  const extensions = tbs.find((field) => field.tag === 0xa3); // [3] EXPLICIT Extensions
  if (!extensions) return null;
  for (const extension of childrenOf(der, childrenOf(der, extensions)[0])) {
    const [oid, ...rest] = childrenOf(der, extension);
    if (oid.tag !== 0x06 || !der.subarray(oid.start, oid.end).equals(AKI_OID)) continue;
    const value = rest.find((field) => field.tag === 0x04); // extnValue OCTET STRING, after an optional critical
    if (!value) return null;
    const aki = readTlv(der, value.start);
    const keyId = childrenOf(der, aki).find((field) => field.tag === 0x80); // keyIdentifier [0] IMPLICIT
    return keyId ? der.subarray(keyId.start, keyId.end) : null;
  }
  return null;
}

/** One DER element: its tag and where its content starts and ends in the buffer. */
interface Tlv {
  tag: number;
  start: number;
  end: number;
}

function readTlv(der: Buffer, offset: number): Tlv {
  if (offset + 2 > der.length) throw new Error('Truncated DER.');
  const tag = der[offset];
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new Error('Unsupported DER length.');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[start + i];
    start += octets;
  }
  if (start + length > der.length) throw new Error('Truncated DER.');
  return { tag, start, end: start + length };
}

function childrenOf(der: Buffer, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const child = readTlv(der, offset);
    children.push(child);
    offset = child.end;
  }
  return children;
}
