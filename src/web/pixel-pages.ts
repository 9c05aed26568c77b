import { html, type Html } from './html.js';

/** A container's Meta pixels: the form to add one and each pixel with its last delivery (loaded by meta-pixels.js). */
export const metaPixelsPage = (containerId: string): Html => html`
<p><a href="/dashboard/containers">← All containers</a></p>
<div id="meta-pixels" data-container-id="${containerId}">
<h1 id="pixels-title">Meta pixels</h1>
<p>The container forwards the events it receives to each pixel through Meta's Conversions API. A pixel's access token is shown once, when you add it: Tagport stores it encrypted and afterwards shows only its last four characters.</p>
<p class="warning" id="pixels-runtime" hidden></p>
<section aria-labelledby="add-pixel-heading">
  <h2 id="add-pixel-heading">Add a pixel</h2>
  <form id="pixel-form" class="stack" novalidate>
    <label for="pixel-id">Pixel id <span class="hint">(digits, from Events Manager)</span></label>
    <input id="pixel-id" name="pixel_id" required inputmode="numeric" autocomplete="off" maxlength="20">
    <label for="pixel-token">Access token <span class="hint">(Events Manager → Settings → Generate access token)</span></label>
    <input id="pixel-token" name="access_token" type="password" required autocomplete="off" maxlength="1000">
    <label for="pixel-test-code">Test event code <span class="hint">(optional, from Events Manager → Test events)</span></label>
    <input id="pixel-test-code" name="test_event_code" autocomplete="off" maxlength="64">
    <button type="submit">Add pixel</button>
    <p class="error" role="alert" id="pixel-error" hidden></p>
  </form>
  <p role="status" id="pixel-status"></p>
</section>
<section aria-labelledby="pixels-heading">
  <h2 id="pixels-heading">Pixels</h2>
  <p class="hint">Edit a pixel to change its test event code or to replace an expired access token; it keeps its delivery records. A new token is stored encrypted like the first and never shown again.</p>
  <p><button type="button" id="pixels-refresh">Refresh</button></p>
  <p class="error" role="alert" id="pixels-error" hidden></p>
  <div id="pixels-list" aria-live="polite"><p>Loading…</p></div>
</section>
</div>`;
