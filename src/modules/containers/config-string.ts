import { ContainerErrors } from './errors.js';

/** The container config string from GTM ("manually provision tagging server"): checked on input, masked on output. */

/** Decodes and checks a server-side GTM container config; returns the GTM container id. */
export function parseContainerConfig(config: string): string {
  const trimmed = config.trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(trimmed))
    throw ContainerErrors.invalidConfig('config must be the base64 container config string from Google Tag Manager.');
  const params = new URLSearchParams(Buffer.from(trimmed, 'base64').toString('utf8'));
  const id = params.get('id') ?? '';
  if (!/^GTM-[A-Z0-9]{4,12}$/.test(id))
    throw ContainerErrors.invalidConfig('config does not decode to a GTM container (id=GTM-…&env=…&auth=…).');
  if (!/^\d{1,6}$/.test(params.get('env') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid env parameter.');
  if (!/^[A-Za-z0-9_-]{6,200}$/.test(params.get('auth') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid auth parameter.');
  return id;
}

/** The config as shown: its first 6 and last 4 characters. */
export function maskConfig(config: string): string {
  return `${config.slice(0, 6)}…${config.slice(-4)}`;
}
