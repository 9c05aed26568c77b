import thirdPartyWeb from 'third-party-web';

/** Registrable domain ("eTLD+1") of a host, via third-party-web's public-suffix aware helper. */
export function registrableDomain(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  try {
    return thirdPartyWeb.getRootDomain(`https://${bare.includes(':') ? `[${bare}]` : bare}/`) || bare;
  } catch {
    return bare;
  }
}

/** Registrable domain of a URL's host; null for no URL or one without a host. */
export function registrableDomainOfUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const host = new URL(url).hostname;
    return host ? registrableDomain(host) : null;
  } catch {
    return null;
  }
}
