import { html, type Html } from './html.js';
import { requestPowerupsFieldset } from './request-powerups-form.js';

/** Page bodies. Data is loaded by /assets/app.js from the JSON API with the session cookie. */

export const loginPage = (): Html => html`
<section class="narrow">
  <h1>Sign in</h1>
  <form id="login-form" class="stack" novalidate>
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <div id="code-field" class="stack" hidden>
      <label for="code">Authentication code <span class="hint">(from your app, or a recovery code)</span></label>
      <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="32">
    </div>
    <button type="submit">Sign in</button>
    <p class="error" role="alert" id="login-error" hidden></p>
  </form>
</section>`;

/** With `tokenRequired` (the database has tenants but no users) the form asks for the one-time set-up token. */
export const setupPage = ({ tokenRequired, token }: { tokenRequired: boolean; token: string }): Html => html`
<section class="narrow">
  <h1>Set up Tagport</h1>
  <p>This database has no users yet. Create your organisation and its owner account.</p>
  <form id="setup-form" class="stack" novalidate>
    ${tokenRequired ? setupTokenField(token) : ''}
    <label for="organisation">Organisation</label>
    <input id="organisation" name="organisation" required maxlength="200">
    <label for="plan">Plan</label>
    <select id="plan" name="plan" aria-describedby="plan-hint">
      <option value="agency">Agency (manages up to 100 client tenants)</option>
      <option value="partner">Partner (manages up to 1,000 client tenants)</option>
      <option value="business">Business</option>
      <option value="pro">Pro</option>
      <option value="free">Free</option>
    </select>
    <p class="hint" id="plan-hint">Agency and partner organisations act for their clients, each in a client tenant of its own.</p>
    <label for="name">Your name</label>
    <input id="name" name="name" required autocomplete="name">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" required autocomplete="username">
    <label for="password">Password <span class="hint">(at least 12 characters)</span></label>
    <input id="password" name="password" type="password" required minlength="12" autocomplete="new-password">
    <button type="submit">Create owner account</button>
    <p class="error" role="alert" id="setup-error" hidden></p>
  </form>
</section>`;

const setupTokenField = (token: string): Html => html`
    <label for="setup_token">Set-up token <span class="hint">(from <code>tagport setup-token</code> or the set-up URL in the server log)</span></label>
    <input id="setup_token" name="setup_token" required autocomplete="off" value="${token}">`;

export const overviewPage = (): Html => html`
<h1>Overview</h1>
<section aria-labelledby="health-heading" id="overview" aria-busy="true">
  <h2 id="health-heading" class="sr-only">Health</h2>
  <div id="attention" class="notice" role="status" aria-live="polite"><p>Loading…</p></div>
  <div class="tiles">
    <article class="tile" aria-labelledby="tile-containers"><h3 id="tile-containers">Containers</h3><p class="figure" id="containers-figure">—</p><p class="hint" id="containers-detail"></p></article>
    <article class="tile" aria-labelledby="tile-traffic"><h3 id="tile-traffic">Requests</h3><p class="figure" id="traffic-today">—</p><p class="hint" id="traffic-detail"></p><div id="traffic-sparkline"></div></article>
    <article class="tile" aria-labelledby="tile-uptime"><h3 id="tile-uptime">Uptime</h3><dl class="uptime" id="uptime-list"></dl><p class="hint" id="incidents-detail"></p></article>
    <article class="tile" aria-labelledby="tile-scans"><h3 id="tile-scans">Scans this hour</h3><p class="figure" id="scans-figure">—</p><p class="hint" id="scans-detail"></p></article>
  </div>
</section>
<section aria-labelledby="steps-heading" id="next-steps" hidden>
  <h2 id="steps-heading">Get started</h2>
  <ol id="steps-list" class="steps"></ol>
</section>
<section aria-labelledby="incidents-heading" id="incidents-section" hidden>
  <h2 id="incidents-heading">Open incidents</h2>
  <ul id="incidents-list" class="plain"></ul>
</section>
<section aria-labelledby="clients-heading" id="clients-section" hidden>
  <h2 id="clients-heading">Clients that need attention</h2>
  <div class="table-wrap"><table id="clients-table"><caption class="sr-only">Clients that need attention</caption>
    <thead><tr><th scope="col">Client</th><th scope="col">Failed containers</th><th scope="col">Open incidents</th></tr></thead>
    <tbody></tbody></table></div>
</section>
<section aria-labelledby="latest-scans-heading">
  <h2 id="latest-scans-heading">Latest scans</h2>
  <div class="table-wrap"><table id="latest-scans-table"><caption class="sr-only">Latest scans</caption>
    <thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Trackers</th><th scope="col">When</th></tr></thead>
    <tbody><tr><td colspan="4">Loading…</td></tr></tbody></table></div>
</section>
<section aria-labelledby="tenants-heading">
  <h2 id="tenants-heading">Tenants</h2>
  <p class="hint">Your tenant and, for agencies and partners, its client tenants.</p>
  <div class="table-wrap"><table id="tenants-table"><caption class="sr-only">Tenants</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Role</th><th scope="col">Scans per hour</th><th scope="col">Created</th></tr></thead>
    <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
  <form id="client-form" class="inline" hidden>
    <label for="client-name">New client tenant</label>
    <input id="client-name" name="name" required maxlength="200">
    <button type="submit">Create client</button>
    <p class="error" role="alert" id="client-error" hidden></p>
  </form>
</section>`;

export const apiKeysPage = (): Html => html`
<h1>API keys</h1>
<p>Keys authenticate API requests with <code>Authorization: Bearer tgp_…</code>. A key's token is shown once, when it is created.</p>
<form id="key-form" class="inline">
  <label for="key-name">Key name</label>
  <input id="key-name" name="name" required maxlength="100" placeholder="e.g. Reporting script">
  <label for="key-expiry">Expires <span class="hint">(optional)</span></label>
  <input id="key-expiry" name="expires_at" type="date">
  <label for="key-role">Role</label>
  <select id="key-role" name="role" aria-describedby="key-roles">
    <option value="member">member</option>
    <option value="admin" selected>admin</option>
    <option value="owner">owner</option>
  </select>
  <button type="submit">Create key</button>
  <p class="error" role="alert" id="key-error" hidden></p>
</form>
<div id="key-roles" class="hint roles"><p>What a key may do, by its role (never above yours<span id="key-own-role"></span>):</p><ul>
  <li><strong>member</strong>: reads everything of the tenant, runs scans, requests reports, acknowledges and resolves incidents.</li>
  <li><strong>admin</strong>: also creates, changes and deletes containers, domains, monitors, webhooks, notification channels and API keys, creates client tenants and invites people.</li>
  <li><strong>owner</strong>: also sets plans and limits (a client tenant created with a plan needs it), archives tenants and manages owners.</li>
</ul></div>
<section id="new-key" class="notice" hidden aria-live="polite">
  <h2>Your new API key</h2>
  <p class="warning"><strong>Copy this token now.</strong> It will not be shown again; Tagport stores only a hash of it.</p>
  <div class="token-row"><code id="new-key-token"></code> <button type="button" id="copy-token">Copy</button> <span id="copy-status" role="status"></span></div>
  <button type="button" id="dismiss-token" class="link">I have stored it</button>
</section>
<section id="deprecated-calls" class="notice" hidden aria-labelledby="deprecated-calls-title">
  <h2 id="deprecated-calls-title">Keys calling deprecated operations</h2>
  <p class="warning">These keys called operations in the last 30 days that will stop working after their sunset date. Move the calls to the replacement the changelog names.</p>
  <ul id="deprecated-calls-list"></ul>
</section>
<div class="table-wrap"><table id="keys-table"><caption class="sr-only">API keys</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody><tr><td colspan="8">Loading…</td></tr></tbody></table></div>`;

export const scansPage = (): Html => html`
<h1>Scans</h1>
<p><a href="/check">Run a scan</a> · the API: <code>POST /api/v1/tracking-checker/scan/</code></p>
<div class="table-wrap"><table id="scans-table"><caption class="sr-only">Scans</caption>
  <thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Trackers</th><th scope="col">Language</th><th scope="col">When</th></tr></thead>
  <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
<nav class="pager" aria-label="Scan pages"><button type="button" id="scans-prev" disabled>Previous</button> <button type="button" id="scans-next" disabled>Next</button></nav>`;

export const scanResultPage = (scanId: string): Html => html`
<p><a href="/dashboard/scans">← All scans</a></p>
<div id="scan-result" data-scan-id="${scanId}" aria-live="polite"><p>Loading…</p></div>`;

export const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  nl: 'Nederlands',
  pt: 'Português',
  pl: 'Polski',
};

export const checkerPage = (): Html => html`
<h1>Tracking checker</h1>
<p>Find the trackers on a page, how consent is handled, whether tags run server-side, and how much data is likely lost.</p>
<form id="check-form" class="stack wide" novalidate>
  <label for="check-url">Page address</label>
  <input id="check-url" name="url" type="url" inputmode="url" placeholder="https://www.example.com/" required>
  <div class="row">
    <div><label for="check-language">Language</label>
      <select id="check-language" name="language">${Object.entries(LANGUAGE_NAMES).map(([code, name]) => html`<option value="${code}">${name}</option>`)}</select></div>
    <div class="checks">
      <label><input type="checkbox" name="ai_summary" checked> Summary and recommendations</label>
      <label><input type="checkbox" name="pagespeed"> Page performance (slower)</label>
    </div>
  </div>
  <button type="submit">Scan page</button>
  <p class="error" role="alert" id="check-error" hidden></p>
</form>
<p id="check-progress" role="status" hidden>Scanning… this takes a few seconds.</p>
<div id="scan-result" aria-live="polite"></div>`;

export const monitorsPage = (): Html => html`
<h1>Monitors</h1>
<form id="monitor-form" class="inline">
  <label for="monitor-name">Name</label>
  <input id="monitor-name" name="name" required maxlength="200">
  <label for="monitor-target-kind">Target</label>
  <select id="monitor-target-kind" name="target"><option value="url">A URL</option></select>
  <span id="monitor-url-field"><label for="monitor-url">https URL</label>
  <input id="monitor-url" name="url" type="url" required size="28" placeholder="https://www.example.com/"></span>
  <span id="monitor-path-field" hidden><label for="monitor-path">Path</label>
  <input id="monitor-path" name="path" pattern="/[^ ]*" value="/" maxlength="2048"></span>
  <label for="monitor-interval">Every (s)</label>
  <input id="monitor-interval" name="interval_seconds" type="number" min="10" max="86400" value="300">
  <fieldset class="choices"><legend>Notify</legend><span id="monitor-channel-options" class="choice-list"><span class="hint">No notification channels yet: <a href="/dashboard/notifications">add one</a>.</span></span></fieldset>
  <button type="submit">Add monitor</button>
  <p class="error" role="alert" id="monitor-error" hidden></p>
</form>
<div class="table-wrap"><table id="monitors-table"><caption class="sr-only">Monitors</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">Every</th><th scope="col">Last check</th></tr></thead>
  <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
<h2>Incidents</h2>
<div class="table-wrap"><table id="incidents-table"><caption class="sr-only">Incidents</caption>
  <thead><tr><th scope="col">Monitor</th><th scope="col">Status</th><th scope="col">Cause</th><th scope="col">Opened</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>`;

export const monitorPage = (monitorId: string): Html => html`
<p><a href="/dashboard/monitors">← All monitors</a></p>
<div id="monitor-detail" data-monitor-id="${monitorId}">
  <h1 id="monitor-title">Monitor</h1>
  <p><span id="monitor-status"></span> · <span id="monitor-target"></span> <button type="button" id="monitor-toggle">Pause</button></p>
  <form id="monitor-channels-form" class="inline" novalidate>
    <fieldset class="choices"><legend>Notify</legend><span id="detail-channel-options" class="choice-list"><span class="hint">No notification channels yet: <a href="/dashboard/notifications">add one</a>.</span></span></fieldset>
    <button type="submit">Save channels</button>
    <span role="status" id="monitor-channels-status"></span>
    <p class="error" role="alert" id="monitor-channels-error" hidden></p>
  </form>
  <div class="cards" id="monitor-stats"></div>
  <h2>Latency of recent checks</h2>
  <div class="chart-box"><canvas id="latency-chart" role="img" aria-label="Latency of the recent checks in milliseconds"></canvas></div>
  <h2>Recent checks</h2>
  <div class="table-wrap"><table id="checks-table"><caption class="sr-only">Checks</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Result</th><th scope="col">Status code</th><th scope="col">Latency</th><th scope="col">Error</th></tr></thead><tbody></tbody></table></div>
</div>`;

export const reportsPage = (): Html => html`
<h1>Reports</h1>
<form id="report-form" class="inline">
  <label for="report-kind">Kind</label>
  <select id="report-kind" name="kind"><option value="uptime">Uptime</option><option value="usage">Usage</option><option value="scans">Scans</option></select>
  <label for="report-start">From (UTC)</label>
  <input id="report-start" name="start" type="date" required>
  <label for="report-end">To (UTC, exclusive)</label>
  <input id="report-end" name="end" type="date" required>
  <label for="report-format">Format</label>
  <select id="report-format" name="format"><option value="csv">CSV</option><option value="json">JSON</option></select>
  <button type="submit">Request report</button>
  <p class="error" role="alert" id="report-error" hidden></p>
</form>
<div class="table-wrap"><table id="reports-table"><caption class="sr-only">Reports</caption>
  <thead><tr><th scope="col">Kind</th><th scope="col">Period</th><th scope="col">Status</th><th scope="col">Requested</th><th scope="col"><span class="sr-only">Download</span></th></tr></thead>
  <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>`;

/** The containers page; `sgtmUnavailable` says why runtime `sgtm` cannot be chosen here (null when it can). */
export const containersPage = (sgtmUnavailable: string | null): Html => html`
<h1>Containers</h1>
<form id="container-form" class="inline">
  <span class="pair"><label for="container-name">Name</label>
  <input id="container-name" name="name" required maxlength="100"></span>
  <span class="pair"><label for="container-region">Region</label>
  <select id="container-region" name="region"><option>eu-central</option><option>eu-west</option><option>us-east</option><option>us-west</option><option>ap-southeast</option></select></span>
  <span class="pair"><label for="container-config">GTM container config</label>
  <input id="container-config" name="config" required placeholder="base64 string from GTM"></span>
  <span class="pair"><label for="container-runtime">Runtime</label>
  <select id="container-runtime" name="runtime" aria-describedby="runtime-hint"><option value="builtin">built-in (GA4 and Meta forwarding)</option><option value="upstream">upstream (your tagging server)</option><option value="sgtm"${sgtmUnavailable ? ' disabled' : ''}>Google tagging server, run here (sgtm)</option></select></span>
  <span class="pair"><label for="container-upstream">Upstream (https, optional)</label>
  <input id="container-upstream" name="upstream_url" type="url" placeholder="https://tagging.example.com"></span>
  <button type="submit">Create container</button>
  <p class="hint" id="runtime-hint">${sgtmUnavailable ? `Google tagging servers: ${sgtmUnavailable}` : "sgtm: Tagport runs Google's tagging server with your container config, with a preview server for GTM's preview mode."}</p>
  <p class="error" role="alert" id="container-error" hidden></p>
</form>
<div class="table-wrap"><table id="containers-table"><caption class="sr-only">Containers</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Region</th><th scope="col">Hostname</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
<h2>Requests, last 30 days</h2>
<p class="hint" id="usage-caption">Choose a container to see its usage.</p>
<div class="chart-box" id="usage-chart-box" hidden><canvas id="usage-chart" role="img" aria-label="Requests per day"></canvas></div>
<section id="tagging-server" hidden aria-labelledby="tagging-server-title">
<h2 id="tagging-server-title">Google tagging server</h2>
<dl class="facts" id="tagging-server-facts"></dl>
<h3>Recent output</h3>
<pre class="logs" id="tagging-server-logs" tabindex="0" aria-label="Recent output of the tagging servers"></pre>
</section>
<section id="container-settings" hidden aria-labelledby="settings-title">
<h2 id="settings-title">Tracking and settings</h2>
<p class="hint" id="runtime-caption"></p>
<div class="chart-box"><canvas id="runtime-chart" role="img" aria-label="Tracking events per day"></canvas></div>
<h3>Snippet</h3>
<p class="hint">Paste it into every page of the site, in place of Google's own tag snippet.</p>
<pre class="snippet"><code id="settings-snippet"></code></pre>
<p class="token-row"><button type="button" id="copy-snippet">Copy snippet</button> <span id="copy-snippet-status" role="status"></span></p>
<p class="hint"><a id="track-container" href="/dashboard/tracking-monitors#tm-new-heading">Watch this container's tracking on your site</a>: scheduled scans of your pages that alert when its snippet or endpoint is gone.</p>
<form id="settings-form">
  <label for="settings-loader">Custom loader path</label>
  <input id="settings-loader" name="loader_path" required pattern="[a-z0-9][a-z0-9\-]{2,39}">
  <label for="settings-ga4">GA4 measurement ids (comma-separated)</label>
  <input id="settings-ga4" name="ga4_measurement_ids" placeholder="G-ABC123XYZ">
  <fieldset><legend>Power-ups</legend>
    <label><input type="checkbox" name="cookie_keeper"> Cookie keeper</label>
    <label><input type="checkbox" name="click_id_restorer"> Click ID restorer</label>
    <label><input type="checkbox" name="geo_headers"> GEO headers (country, region and city)</label>
    <label for="settings-bots">Bot detection</label>
    <select id="settings-bots" name="bot_detection" aria-describedby="settings-bots-hint"><option value="off">off</option><option value="mark">mark</option><option value="drop">drop</option></select>
    <p class="hint" id="settings-bots-hint">Each request is scored 0–100 (above 75: a bot); tagging servers receive <code>X-Device-Bot</code> and <code>X-Device-Bot-Score</code>.</p>
  </fieldset>
  ${requestPowerupsFieldset}
  <fieldset><legend>Anonymizer</legend>
    <label for="settings-ga4-ip">GA4: IP</label>
    <select id="settings-ga4-ip" name="ga4.ip"><option>keep</option><option>truncate</option><option>drop</option></select>
    <label for="settings-ga4-ua">GA4: user agent</label>
    <select id="settings-ga4-ua" name="ga4.user_agent"><option>keep</option><option>drop</option></select>
    <label for="settings-ga4-click">GA4: click ids</label>
    <select id="settings-ga4-click" name="ga4.click_ids"><option>keep</option><option>drop</option></select>
    <label for="settings-ga4-uid">GA4: user id</label>
    <select id="settings-ga4-uid" name="ga4.user_id"><option>keep</option><option>drop</option></select>
    <label for="settings-ga4-pii">GA4: personal data (e-mail, phone, name, address)</label>
    <select id="settings-ga4-pii" name="ga4.user_data"><option>keep</option><option>drop</option></select>
    <label for="settings-meta-ip">Meta: IP</label>
    <select id="settings-meta-ip" name="meta.ip"><option>keep</option><option>truncate</option><option>drop</option></select>
    <label for="settings-meta-ua">Meta: user agent</label>
    <select id="settings-meta-ua" name="meta.user_agent"><option>keep</option><option>drop</option></select>
    <label for="settings-meta-click">Meta: click ids</label>
    <select id="settings-meta-click" name="meta.click_ids"><option>keep</option><option>drop</option></select>
    <label for="settings-meta-uid">Meta: user id</label>
    <select id="settings-meta-uid" name="meta.user_id"><option>keep</option><option>drop</option></select>
    <label for="settings-meta-pii">Meta: personal data (e-mail, phone, name, address)</label>
    <select id="settings-meta-pii" name="meta.user_data"><option>keep</option><option>drop</option></select>
  </fieldset>
  <button type="submit">Save settings</button>
  <p class="error" role="alert" id="settings-error" hidden></p>
</form>
</section>
<h2>Custom domains</h2>
<form id="domain-form" class="inline">
  <span class="pair"><label for="domain-hostname">Hostname</label>
  <input id="domain-hostname" name="hostname" required placeholder="data.shop.example"></span>
  <span class="pair"><label for="domain-container">Container</label>
  <select id="domain-container" name="container_id" required><option value="">Create a container first</option></select></span>
  <button type="submit">Add domain</button>
  <p class="error" role="alert" id="domain-error" hidden></p>
</form>
<div id="domains-list" aria-live="polite"></div>`;

export const securityPage = (): Html => html`
<h1>Security</h1>
<section aria-labelledby="two-factor-heading">
  <h2 id="two-factor-heading">Two-factor sign-in</h2>
  <p id="two-factor-state" role="status">Loading…</p>
  <p class="warning" id="two-factor-required" hidden>Your organisation requires two-factor sign-in: set it up to continue.</p>
  <button type="button" id="two-factor-start" hidden>Set up two-factor sign-in</button>
  <form id="two-factor-confirm" class="stack" hidden>
    <p>Scan this code with an authenticator app (1Password, Google Authenticator, Authy, …), then enter the 6-digit code it shows.</p>
    <img id="two-factor-qr" alt="QR code for your authenticator app" width="200" height="200">
    <p class="hint">Cannot scan? Enter this key: <code id="two-factor-secret"></code></p>
    <label for="confirm-code">Code from the app</label>
    <input id="confirm-code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="6" required>
    <button type="submit">Turn on</button>
    <p class="error" role="alert" id="two-factor-error" hidden></p>
  </form>
  <section id="recovery-codes" class="notice" hidden aria-live="polite">
    <h3>Your recovery codes</h3>
    <p class="warning"><strong>Store these now.</strong> Each signs in once without your app; they will not be shown again.</p>
    <ul id="recovery-list" class="codes"></ul>
  </section>
  <form id="two-factor-disable" class="inline" hidden>
    <label for="disable-code">Code to turn it off</label>
    <input id="disable-code" name="code" autocomplete="one-time-code" maxlength="32" required>
    <button type="submit" class="danger">Turn off</button>
    <p class="error" role="alert" id="disable-error" hidden></p>
  </form>
</section>
<section aria-labelledby="sessions-heading">
  <h2 id="sessions-heading">Signed-in sessions</h2>
  <div class="table-wrap"><table id="sessions-table"><caption class="sr-only">Signed-in sessions</caption>
    <thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Two-factor</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
</section>`;
