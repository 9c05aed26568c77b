/** URL and text helpers the detection steps share. */

export function hostOf(raw: string): string | null {
  try {
    return new URL(raw).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export function originOf(raw: string): string | null {
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}

/** A collection endpoint as reported: origin and path, no query. */
export function endpointOf(raw: string): string {
  try {
    const url = new URL(raw);
    return shorten(url.pathname === '/' ? url.origin : `${url.origin}${url.pathname}`, 300);
  } catch {
    return shorten(raw);
  }
}

export function shorten(raw: string, max = 300): string {
  return raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
}

/** A request counts as sent when it got a response, or is still open without having failed. */
export function wasSent(request: { status: number | null; failure: string | null }): boolean {
  return request.failure === null || request.status !== null;
}

/** Why a request got no response, in words: the CSP directive that refused it, or the network error. */
export function blockedReason(
  request: { url: string; failure: string | null },
  cspViolations: Array<{ url: string; directive: string }>,
): string {
  const failure = request.failure ?? 'failed';
  if (failure === 'csp' || /BLOCKED_BY_CSP/i.test(failure)) {
    const violation = cspViolations.find((item) => item.url === request.url || request.url.startsWith(item.url));
    return violation?.directive ? `Content-Security-Policy (${violation.directive})` : 'Content-Security-Policy';
  }
  if (/ERR_ABORTED/i.test(failure)) return `aborted: ${failure}`;
  return `network error: ${failure}`;
}
