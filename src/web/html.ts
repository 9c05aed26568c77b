/** Minimal server-side HTML: escaped interpolation and the page layout. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/** A trusted HTML fragment (already escaped). */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

/** Tagged template: interpolations are escaped unless they are Html (or arrays of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, index) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((part) => (part instanceof Html ? part.value : escapeHtml(part))).join('') + strings[index + 1];
  });
  return new Html(out);
}

export interface LayoutOptions {
  title: string;
  /** Signed-in user's name; shows the dashboard navigation and sign-out. */
  user?: { name: string; tenantName: string } | null;
  current?: string;
  body: Html;
  /** Classic scripts (e.g. /assets/chart.js), run before the app's module script, which is deferred anyway. */
  scripts?: string[];
  /** Extra stylesheets after app.css, and module scripts after app.js (a page's own behaviour). */
  styles?: string[];
  modules?: string[];
  /** Reload the page after this many seconds (an error page that knows when to try again). */
  refreshSeconds?: number;
}

const DASHBOARD_LINKS: Array<[string, string]> = [
  ['/dashboard', 'Overview'],
  ['/dashboard/api-keys', 'API keys'],
  ['/dashboard/containers', 'Containers'],
  ['/dashboard/monitors', 'Monitors'],
  ['/dashboard/tracking-monitors', 'Tracking monitors'],
  ['/dashboard/notifications', 'Notifications'],
  ['/dashboard/reports', 'Reports'],
  ['/dashboard/scans', 'Scans'],
  ['/dashboard/team', 'Team'],
];

export function layout({
  title,
  user,
  current,
  body,
  scripts = [],
  styles = [],
  modules = [],
  refreshSeconds,
}: LayoutOptions): string {
  const nav = user
    ? html`<nav aria-label="Dashboard"><ul>${DASHBOARD_LINKS.map(
        ([href, label]) =>
          html`<li><a href="${href}"${new Html(current === href ? ' aria-current="page"' : '')}>${label}</a></li>`,
      )}<li><a href="/check">Tracking checker</a></li><li><a href="/api/docs/">API</a></li></ul>
      <div class="who"><a href="/dashboard/security"${new Html(current === '/dashboard/security' ? ' aria-current="page"' : '')}>${user.name}</a> <span>· ${user.tenantName}</span> <button type="button" id="sign-out" class="link">Sign out</button></div></nav>`
    : html`<nav aria-label="Site"><ul><li><a href="/check">Tracking checker</a></li><li><a href="/api/docs/">API</a></li><li><a href="/status">Status</a></li><li><a href="/changelog">Changelog</a></li><li><a href="/login">Sign in</a></li></ul></nav>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Tagport</title>
${refreshSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${Math.ceil(refreshSeconds)}">`}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<link rel="stylesheet" href="/assets/small-screens.css" media="(max-width: 600px)">
${styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/">Tagport</a>${nav}</header>
<main id="main" tabindex="-1">
${body}
</main>
${scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('\n')}
<script type="module" src="/assets/app.js"></script>
${modules.map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join('\n')}
</body>
</html>`;
}

/** The page for a URL that does not exist, for browsers (the API answers JSON). */
export function notFoundPage(path: string): string {
  return layout({
    title: 'Page not found',
    body: html`<h1>Page not found</h1><p>There is no page at <code>${path}</code>.</p><p><a href="/">Home</a> · <a href="/api/docs/">API documentation</a> · <a href="/status">Status</a></p>`,
  });
}

const ERROR_TITLES: Record<number, string> = {
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/**
 * An error answering a browser's page load (the API answers JSON): what went wrong, the request id to quote and,
 * when the answer says when to retry, a reload at that time.
 */
export function errorPage(status: number, message: string, requestId: string, retryAfterSeconds?: number): string {
  const title = ERROR_TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'This page cannot be shown');
  const retry =
    retryAfterSeconds === undefined ? '' : html`<p>This page reloads by itself in ${retryAfterSeconds} s.</p>`;
  return layout({
    title,
    refreshSeconds: retryAfterSeconds,
    body: html`<h1>${title}</h1><p>${message}</p>${retry}<p>Request id: <code>${requestId}</code></p><p><a href="/">Home</a> · <a href="/status">Status</a></p>`,
  });
}
