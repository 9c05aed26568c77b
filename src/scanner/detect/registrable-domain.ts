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
