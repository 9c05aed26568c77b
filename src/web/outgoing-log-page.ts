import { html, type Html } from './html.js';

/** "Why is my conversion missing": what the container sent to GA4 and Meta, and their answers (outgoing-log.js). */
export const outgoingLogPage = (containerId: string): Html => html`
<p><a href="/dashboard/containers">← All containers</a></p>
<div id="outgoing-log" data-container-id="${containerId}">
<h1 id="outgoing-title">Outgoing log</h1>
<p>Why is a conversion missing? Every event the container forwarded to GA4 and Meta, once delivered or given up: what was sent (access tokens masked) and what the vendor answered. Search by event name (<code>purchase</code>) or event id (the order id, the pixel's <code>eventID</code>).</p>
<form id="outgoing-search" class="inline" role="search" novalidate>
  <span class="pair"><label for="outgoing-query">Event name or id</label>
  <input id="outgoing-query" name="q" maxlength="200" autocomplete="off" placeholder="purchase or order-1001"></span>
  <span class="pair"><label for="outgoing-vendor">Vendor</label>
  <select id="outgoing-vendor" name="vendor"><option value="">GA4 and Meta</option><option value="ga4">GA4</option><option value="meta">Meta</option></select></span>
  <span class="pair"><label for="outgoing-status">Outcome</label>
  <select id="outgoing-status" name="status"><option value="">delivered and failed</option><option value="failed">failed only</option><option value="delivered">delivered only</option></select></span>
  <button type="submit">Search</button>
</form>
<p class="error" role="alert" id="outgoing-error" hidden></p>
<p role="status" id="outgoing-summary"></p>
<div id="outgoing-results"></div>
<p><button type="button" id="outgoing-more" hidden>Older forwards</button></p>
</div>`;
