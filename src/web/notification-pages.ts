import { html, type Html } from './html.js';

const EVENTS: Array<[string, string]> = [
  ['incident.opened', 'Incident opened'],
  ['incident.acknowledged', 'Incident acknowledged'],
  ['incident.resolved', 'Incident resolved'],
  ['certificate.failed', 'Certificate failed'],
  ['container.failed', 'Container failed'],
  ['container.forwarding_degraded', 'Forwards lost'],
  ['tracking_incident.opened', 'Tracking changed'],
  ['tracking_incident.resolved', 'Tracking back to baseline'],
];

/** Without a mail server (SMTP_URL) e-mail channels cannot deliver: the type is shown, disabled, with the reason. */
const typeOptions = (mailConfigured: boolean): Html =>
  mailConfigured
    ? html`<option value="email">Email</option>
          <option value="slack">Slack / Mattermost / Discord</option>`
    : html`<option value="email" disabled>Email (needs a mail server: SMTP_URL)</option>
          <option value="slack" selected>Slack / Mattermost / Discord</option>`;

/** The Notifications page: channels, the form to add one, and a channel's deliveries (loaded by notifications.js). */
export const notificationsPage = ({ mailConfigured }: { mailConfigured: boolean }): Html => html`
<h1>Notifications</h1>
<p>Where alerts go. A monitor's incidents reach the channels chosen on that monitor; certificate and container failures reach every channel that subscribes to them.</p>
<section aria-labelledby="channel-heading">
  <h2 id="channel-heading">Add a channel</h2>
  <form id="channel-form" class="stack wide" novalidate>
    <div class="row">
      <div class="stack"><label for="channel-name">Name</label>
        <input id="channel-name" name="name" required maxlength="100" placeholder="On-call"></div>
      <div class="stack"><label for="channel-type">Type</label>
        <select id="channel-type" name="type">
          ${typeOptions(mailConfigured)}
          <option value="webhook">Signed webhook</option>
        </select></div>
    </div>
    <label for="channel-target" id="channel-target-label">Email address</label>
    <input id="channel-target" name="target" required maxlength="2048" autocomplete="off" aria-describedby="channel-target-hint" placeholder="oncall@example.com">
    <p class="hint" id="channel-target-hint">Alerts are emailed to this address.</p>
    ${mailConfigured ? '' : html`<p class="hint" id="channel-mail-hint">This instance has no mail server, so alerts cannot be emailed: use a Slack-compatible or a signed webhook channel, or set <code>SMTP_URL</code>.</p>`}
    <fieldset class="checks" id="channel-events">
      <legend>Tell it about</legend>
      ${EVENTS.map(([value, label]) => html`<label><input type="checkbox" name="event_types" value="${value}" checked> ${label}</label>`)}
    </fieldset>
    <button type="submit">Add channel</button>
    <p class="error" role="alert" id="channel-error" hidden></p>
  </form>
  <section id="channel-secret" class="notice" hidden aria-live="polite" aria-labelledby="channel-secret-heading">
    <h3 id="channel-secret-heading">Signing secret</h3>
    <p>Deliveries carry <code>Tagport-Signature</code> signed with this secret. It is shown only now.</p>
    <div class="token-row"><code id="channel-secret-value"></code></div>
    <button type="button" id="dismiss-secret" class="link">Done</button>
  </section>
</section>
<section aria-labelledby="channels-heading">
  <h2 id="channels-heading">Channels</h2>
  <p role="status" id="channels-status"></p>
  <div class="table-wrap"><table id="channels-table"><caption class="sr-only">Notification channels</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Target</th><th scope="col">Events</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
</section>
<section aria-labelledby="deliveries-heading" id="deliveries-section" hidden>
  <h2 id="deliveries-heading" tabindex="-1">Deliveries</h2>
  <div class="table-wrap"><table id="deliveries-table"><caption class="sr-only">Deliveries</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Message</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
    <tbody></tbody></table></div>
</section>`;
