import { html, type Html } from './html.js';

/** Page bodies. Data is loaded by /assets/app.js from the JSON API with the session cookie. */

export const loginPage = (): Html => html`
<section class="narrow">
  <h1>Sign in</h1>
  <form id="login-form" class="stack" novalidate>
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit">Sign in</button>
    <p class="error" role="alert" id="login-error" hidden></p>
  </form>
</section>`;

export const setupPage = (): Html => html`
<section class="narrow">
  <h1>Set up Tagport</h1>
  <p>This database has no users yet. Create your organisation and its owner account.</p>
  <form id="setup-form" class="stack" novalidate>
    <label for="organisation">Organisation</label>
    <input id="organisation" name="organisation" required maxlength="200">
    <label for="plan">Plan</label>
    <select id="plan" name="plan">
      <option value="agency">Agency (manages client tenants)</option>
      <option value="business">Business</option>
      <option value="pro">Pro</option>
      <option value="free">Free</option>
    </select>
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

export const overviewPage = (): Html => html`
<h1>Overview</h1>
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
  <button type="submit">Create key</button>
  <p class="error" role="alert" id="key-error" hidden></p>
</form>
<section id="new-key" class="notice" hidden aria-live="polite">
  <h2>Your new API key</h2>
  <p class="warning"><strong>Copy this token now.</strong> It will not be shown again; Tagport stores only a hash of it.</p>
  <div class="token-row"><code id="new-key-token"></code> <button type="button" id="copy-token">Copy</button> <span id="copy-status" role="status"></span></div>
  <button type="button" id="dismiss-token" class="link">I have stored it</button>
</section>
<div class="table-wrap"><table id="keys-table"><caption class="sr-only">API keys</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody><tr><td colspan="7">Loading…</td></tr></tbody></table></div>`;

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
  en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español', it: 'Italiano', nl: 'Nederlands', pt: 'Português', pl: 'Polski',
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
