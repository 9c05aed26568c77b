import { html, type Html } from './html.js';

/**
 * Tracking monitors: the list with the form to add one, and one monitor with its incident, runs, the diff view of a
 * run and its rules (loaded by tracking-monitors.ts and tracking-monitor.ts).
 */
export const trackingMonitorsPage = (): Html => html`
<h1>Tracking monitors</h1>
<p>A tracking monitor scans a site's key pages on a schedule and compares every run with a baseline: a tracker gone or added, ids changed, a tag firing before consent or a server-side endpoint lost opens an incident and tells the channels you choose. <a href="/dashboard/monitors">Uptime monitors</a> see whether a page answers; tracking monitors see whether its tracking still works.</p>
<div class="table-wrap"><table id="tracking-monitors-table"><caption class="sr-only">Tracking monitors</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Pages</th><th scope="col">Runs</th><th scope="col">Status</th><th scope="col">Incident</th><th scope="col">Last run</th></tr></thead>
  <tbody><tr><td colspan="6">Loading…</td></tr></tbody></table></div>
<section aria-labelledby="tm-new-heading">
  <h2 id="tm-new-heading">New tracking monitor</h2>
  <form id="tm-form" class="stack wide" novalidate>
    <label for="tm-name">Name</label>
    <input id="tm-name" name="name" required maxlength="200" placeholder="e.g. Shop tracking">
    <label for="tm-pages">Pages <span class="hint">(one address per line, the start page first)</span></label>
    <textarea id="tm-pages" name="pages" rows="3" required placeholder="https://shop.example.com/&#10;https://shop.example.com/checkout"></textarea>
    <label for="tm-follow">Follow links <span class="hint">(internal pages linked from the start page to scan as well, 0–4)</span></label>
    <input id="tm-follow" name="follow_links" type="number" min="0" max="4" value="0">
    <p class="hint" id="tm-pages-limit"></p>
    <label for="tm-interval">Runs</label>
    <select id="tm-interval" name="interval_choice">
      <option value="3600">Hourly</option>
      <option value="21600">Every 6 hours</option>
      <option value="86400" selected>Daily</option>
      <option value="custom">Another interval (seconds)</option>
    </select>
    <span id="tm-seconds-field" class="stack" hidden><label for="tm-seconds">Seconds between runs <span class="hint">(up to 86400: daily; at least your plan's minimum)</span></label>
    <input id="tm-seconds" name="interval_seconds" type="number" min="10" max="86400" value="3600"></span>
    <label><input type="checkbox" name="consent_check" checked> Consent check: also load each page after “reject all”</label>
    <label for="tm-container">Container <span class="hint">(optional: checks that every page still uses its hostname)</span></label>
    <select id="tm-container" name="container_id"><option value="">None</option></select>
    <fieldset class="choices"><legend>Notify</legend><span id="tm-channel-options" class="choice-list"><span class="hint">No notification channels yet: <a href="/dashboard/notifications">add one</a>.</span></span></fieldset>
    <button type="submit">Add tracking monitor</button>
    <p class="error" role="alert" id="tm-error" hidden></p>
  </form>
</section>`;

export const trackingMonitorPage = (monitorId: string): Html => html`
<p><a href="/dashboard/tracking-monitors">← All tracking monitors</a></p>
<div id="tracking-monitor" data-monitor-id="${monitorId}">
  <h1 id="tm-title">Tracking monitor</h1>
  <p id="tm-state" role="status" aria-live="polite">Loading…</p>
  <dl class="facts" id="tm-settings"></dl>
  <p class="tm-actions"><button type="button" id="tm-run-now">Run now</button> <button type="button" id="tm-toggle">Pause</button> <button type="button" id="tm-delete" class="danger">Delete</button> <span role="status" id="tm-action-status"></span></p>
  <p class="error" role="alert" id="tm-error" hidden></p>
  <section aria-labelledby="tm-incident-heading">
    <h2 id="tm-incident-heading">Incident</h2>
    <div id="tm-incident" aria-live="polite"><p>Loading…</p></div>
  </section>
  <section aria-labelledby="tm-runs-heading">
    <h2 id="tm-runs-heading">Runs</h2>
    <p class="hint">Newest first. Choose a run by its time to see what each page showed and what changed from the baseline.</p>
    <div class="table-wrap"><table id="tm-runs-table"><caption class="sr-only">Runs</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Result</th><th scope="col">Trigger</th><th scope="col">Changes</th></tr></thead>
      <tbody><tr><td colspan="4">Loading…</td></tr></tbody></table></div>
  </section>
  <section id="tm-run" aria-labelledby="tm-run-heading" hidden>
    <h2 id="tm-run-heading" tabindex="-1">Run</h2>
    <div id="tm-run-body"></div>
  </section>
  <section aria-labelledby="tm-incidents-heading">
    <h2 id="tm-incidents-heading">Incident history</h2>
    <div class="table-wrap"><table id="tm-incidents-table"><caption class="sr-only">Incident history</caption>
      <thead><tr><th scope="col">Opened</th><th scope="col">Severity</th><th scope="col">Status</th><th scope="col">Changes</th><th scope="col">Resolved</th></tr></thead>
      <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
  </section>
  <section aria-labelledby="tm-rules-heading">
    <h2 id="tm-rules-heading">Rules</h2>
    <p class="hint" id="tm-rules-hint">What a run is compared with the baseline on. A rule that is off opens no incident; the severity is the incident's and the alert's.</p>
    <form id="tm-rules-form" novalidate>
      <fieldset id="tm-rules-fields" class="plain-fieldset"><legend class="sr-only">Rules</legend>
      <div class="table-wrap"><table id="tm-rules-table"><caption class="sr-only">Rules</caption>
        <thead><tr><th scope="col">Fires when</th><th scope="col">On</th><th scope="col">Severity</th></tr></thead>
        <tbody><tr><td colspan="3">Loading…</td></tr></tbody></table></div>
      </fieldset>
      <p class="token-row"><button type="submit">Save rules</button> <span role="status" id="tm-rules-status"></span></p>
      <p class="error" role="alert" id="tm-rules-error" hidden></p>
    </form>
  </section>
</div>`;
