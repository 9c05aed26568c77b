import { html } from './html.js';

/** The container settings form's fieldset for the request power-ups (src/modules/containers/request-powerups.ts). */
export const requestPowerupsFieldset = html`<fieldset id="request-powerups"><legend>Request power-ups</legend>
    <p class="hint">For <code>upstream</code> and <code>sgtm</code> containers unless said otherwise.</p>
    <label for="settings-preview">GTM preview header (<code>X-Gtm-Server-Preview</code> from GTM's preview mode; empty: off)</label>
    <input id="settings-preview" name="preview_header" autocomplete="off" spellcheck="false">
    <label><input type="checkbox" name="user_id_header"> User ID header (<code>X-Stape-User-Id</code>)</label>
    <label><input type="checkbox" name="request_delay"> Request delay (<code>/stape/delay/&lt;minutes&gt;/&lt;path&gt;</code>, any runtime)</label>
    <label><input type="checkbox" name="xml_to_json"> XML to JSON</label>
    <label for="settings-xml-paths">XML to JSON paths (comma-separated)</label>
    <input id="settings-xml-paths" name="xml_to_json_paths" placeholder="/webhooks/crm" spellcheck="false">
    <label><input type="checkbox" name="file_proxy"> File proxy (any runtime)</label>
    <label for="settings-files">Proxied files, one a line: path, https URL, seconds cached</label>
    <textarea id="settings-files" name="file_proxy_files" rows="3" spellcheck="false" placeholder="/lib/pixel.js https://cdn.vendor.example/pixel.js 3600"></textarea>
    <label for="settings-schedule">Schedule, one request a line: name | cron (UTC) | GET or POST | path</label>
    <textarea id="settings-schedule" name="schedule" rows="3" spellcheck="false" placeholder="refresh-feed | 0 6 * * * | GET | /feeds/refresh"></textarea>
    <p class="hint">A scheduled POST's body can be set through the API (<code>settings.schedule.requests[].body</code>).</p>
  </fieldset>`;
