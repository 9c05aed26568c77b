import type { ContainerSettingsDto } from '../../modules/containers/settings.js';

/**
 * Whether a container's requests all go to the Node gateway with the nginx engine: its power-ups need Node (the geo
 * database, Request Delay's store, the File Proxy's cache, the XML to JSON conversion, the user id's key, the preview header added only
 * when a request has none), so nginx does not proxy it itself.
 */
export function staysWithNode(settings: ContainerSettingsDto): boolean {
  return (
    settings.geo_headers.enabled ||
    settings.request_delay.enabled ||
    settings.file_proxy.enabled ||
    settings.xml_to_json.enabled ||
    settings.user_id_header.enabled ||
    settings.preview_header.value !== null
  );
}
