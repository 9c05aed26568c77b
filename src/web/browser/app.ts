// Tagport web UI: TypeScript for the browser, bundled with its imports into one ES module the first time a page
// asks for /assets/app.js (src/web/browser-bundle.ts; no build step). Talks to the JSON API with the session cookie.
// Each feature module wires up its page's elements when they are present; loaded with <script type="module">, so it
// runs after the document (and the classic chart.js script before it) is parsed.
import './scroll-regions.js';
import './auth.js';
import './overview.js';
import './security.js';
import './team.js';
import './tenants.js';
import './api-keys.js';
import './scans.js';
import './containers.js';
import './meta-pixels.js';
import './outgoing-log.js';
import './monitors.js';
import './tracking-monitors.js';
import './tracking-monitor.js';
import './notifications.js';
import './reports.js';
import './checker.js';
