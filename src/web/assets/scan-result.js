import { date, el } from './ui.js';

// Scan result rendering (dashboard result view and public checker)
const CATEGORY_NAMES = {
  tag_manager: 'Tag managers',
  analytics: 'Analytics',
  advertising: 'Advertising',
  session_replay: 'Session replay',
  social: 'Social',
  customer_data_platform: 'Customer data platforms',
  marketing: 'Marketing',
};
let lossChart = null;

/** The consent platform's name; a banner no rule knows has none. */
function cmpName(cmp, absent) {
  if (!cmp) return absent;
  return cmp.name ?? 'unnamed (banner visible)';
}

/** yes/no, coloured only where one answer is a problem (`bad` is the worrying value). */
function yesNo(value, bad) {
  if (value === null || value === undefined) return el('span', {}, 'unknown');
  return el('span', { class: bad === undefined ? '' : value === bad ? 'no' : 'yes' }, value ? 'yes' : 'no');
}

/** The cookies present after load without consent: who set them, how, and for how long. */
function cookieSection(cookies) {
  if (!cookies) return null;
  const rows = cookies.map((cookie) =>
    el(
      'tr',
      {},
      el('td', {}, el('code', {}, cookie.name)),
      el('td', {}, cookie.domain, cookie.first_party ? el('span', { class: 'pill' }, 'first party') : null),
      el('td', {}, cookie.tracker ?? '—'),
      el('td', {}, cookie.set_by === 'http' ? 'server (Set-Cookie)' : 'script'),
      el('td', {}, cookie.expires ? date(cookie.expires) : 'session'),
    ),
  );
  return el(
    'section',
    { 'aria-labelledby': 'cookies-heading' },
    el('h2', { id: 'cookies-heading' }, `Cookies (${cookies.length})`),
    cookies.length === 0
      ? el('p', {}, 'No cookies were set before consent.')
      : el(
          'div',
          { class: 'table-wrap' },
          el(
            'table',
            { id: 'cookies-table' },
            el('caption', { class: 'sr-only' }, 'Cookies set before consent'),
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                ...['Name', 'Domain', 'Tracker', 'Set by', 'Expires'].map((name) => el('th', { scope: 'col' }, name)),
              ),
            ),
            el('tbody', {}, rows),
          ),
        ),
  );
}

export function renderResult(result, target) {
  const byCategory = {};
  for (const tracker of result.trackers) {
    byCategory[tracker.category] ??= [];
    byCategory[tracker.category].push(tracker);
  }
  const consent = result.consent;
  const loss = result.loss_estimate;
  const cards = el(
    'div',
    { class: 'cards' },
    el(
      'div',
      { class: 'card' },
      el('div', {}, 'Trackers found'),
      el('div', { class: 'big', 'data-testid': 'tracker-count' }, String(result.trackers.length)),
    ),
    el(
      'div',
      { class: 'card' },
      el('div', {}, 'Consent banner (CMP)'),
      el('div', { class: 'big' }, cmpName(consent.cmp, 'none')),
    ),
    el(
      'div',
      { class: 'card' },
      el('div', {}, 'Server-side tagging'),
      el('div', { class: 'big' }, result.server_side_tagging.detected ? 'yes' : 'no'),
    ),
    result.pagespeed
      ? el(
          'div',
          { class: 'card' },
          el('div', {}, 'Performance score'),
          el('div', { class: 'big', 'data-testid': 'pagespeed-score' }, String(result.pagespeed.score)),
        )
      : null,
  );

  const trackers = el(
    'section',
    { 'aria-labelledby': 'trackers-heading' },
    el('h2', { id: 'trackers-heading' }, 'Trackers by category'),
    result.trackers.length === 0
      ? el('p', {}, 'No trackers found.')
      : Object.entries(byCategory).map(([category, list]) =>
          el(
            'div',
            { class: 'tracker-group' },
            el('h3', {}, `${CATEGORY_NAMES[category] || category} (${list.length})`),
            el(
              'div',
              { class: 'table-wrap' },
              el(
                'table',
                {},
                el(
                  'thead',
                  {},
                  el(
                    'tr',
                    {},
                    ['Tracker', 'Ids', 'First-party', 'Server-side', 'Fires before consent'].map((h) =>
                      el('th', { scope: 'col' }, h),
                    ),
                  ),
                ),
                el(
                  'tbody',
                  {},
                  list.map((tracker) =>
                    el(
                      'tr',
                      {},
                      el('td', {}, el('strong', {}, tracker.name), el('div', { class: 'hint' }, tracker.vendor)),
                      el(
                        'td',
                        {},
                        tracker.ids.length ? tracker.ids.map((id) => el('code', { class: 'pill' }, id)) : '—',
                      ),
                      el('td', {}, yesNo(tracker.first_party)),
                      el('td', {}, yesNo(tracker.server_side)),
                      el('td', {}, yesNo(tracker.fires_before_consent, true)),
                    ),
                  ),
                ),
              ),
            ),
          ),
        ),
  );

  const mode = consent.consent_mode;
  const consentSection = el(
    'section',
    { 'aria-labelledby': 'consent-heading' },
    el('h2', { id: 'consent-heading' }, 'Consent'),
    el(
      'ul',
      {},
      el('li', {}, 'Consent management platform: ', cmpName(consent.cmp, 'none found')),
      el(
        'li',
        {},
        'Google Consent Mode: ',
        mode.detected
          ? `${mode.version || ''} ${mode.mode ? `(${mode.mode})` : ''}`.trim() || 'detected'
          : 'not detected',
      ),
      mode.detected && mode.defaults
        ? el(
            'li',
            {},
            'Defaults: ',
            Object.entries(mode.defaults)
              .map(([key, value]) => `${key}=${value ?? 'unset'}`)
              .join(', '),
          )
        : null,
      el(
        'li',
        {},
        'Tags firing before consent: ',
        consent.tags_before_consent.length
          ? consent.tags_before_consent
              .map(
                (tag) =>
                  `${tag.name} (${tag.requests} request${tag.requests === 1 ? '' : 's'}${tag.cookieless ? ', cookieless pings' : ''})`,
              )
              .join(', ')
          : 'none observed',
      ),
    ),
  );

  const lossSection = el(
    'section',
    { 'aria-labelledby': 'loss-heading' },
    el('h2', { id: 'loss-heading' }, 'Estimated data loss'),
  );
  const figures = [
    ['Analytics events', loss.analytics_events],
    ['Ad conversions', loss.ad_conversions],
  ].filter(([, figure]) => figure);
  if (figures.length) {
    lossSection.append(
      el(
        'div',
        { class: 'chart-box' },
        el('canvas', {
          id: 'loss-chart',
          role: 'img',
          'aria-label': figures
            .map(
              ([label, f]) => `${label}: ${f.lost_pct}% lost, ${f.lost_pct_with_server_side}% with server-side tagging`,
            )
            .join('; '),
        }),
      ),
    );
    lossSection.append(
      el(
        'table',
        {},
        el('caption', { class: 'sr-only' }, 'Loss by cause'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['', 'Lost', 'Consent', 'Ad blockers', 'Safari ITP', 'With server-side', 'Recoverable'].map((h) =>
              el('th', { scope: 'col' }, h),
            ),
          ),
        ),
        el(
          'tbody',
          {},
          figures.map(([label, f]) =>
            el(
              'tr',
              {},
              el('th', { scope: 'row' }, label),
              el('td', {}, `${f.lost_pct}%`),
              el('td', {}, `${f.by_cause.consent}%`),
              el('td', {}, `${f.by_cause.ad_blockers}%`),
              el('td', {}, `${f.by_cause.itp}%`),
              el('td', {}, `${f.lost_pct_with_server_side}%`),
              el('td', {}, `${f.recoverable_pct} pp`),
            ),
          ),
        ),
      ),
    );
  } else {
    lossSection.append(el('p', {}, 'No measuring trackers found, so nothing is lost.'));
  }
  lossSection.append(el('p', {}, loss.explanation));
  lossSection.append(
    el(
      'details',
      {},
      el('summary', {}, 'Assumptions and sources'),
      el(
        'ul',
        {},
        loss.assumptions.map((a) => el('li', {}, `${a.key}: ${a.value} — ${a.source}`)),
      ),
    ),
  );

  const summary = result.ai_summary
    ? el(
        'section',
        { 'aria-labelledby': 'summary-heading' },
        el('h2', { id: 'summary-heading' }, 'Summary'),
        el('p', {}, result.ai_summary.text),
        el(
          'ul',
          {},
          result.ai_summary.recommendations.map((r) => el('li', {}, r)),
        ),
        el(
          'p',
          { class: 'hint' },
          `Written by: ${result.ai_summary.provider}${result.ai_summary.model ? ` (${result.ai_summary.model})` : ''}`,
        ),
      )
    : null;
  const pagespeed = result.pagespeed
    ? el(
        'section',
        { 'aria-labelledby': 'perf-heading' },
        el('h2', { id: 'perf-heading' }, 'Page performance'),
        el(
          'p',
          {},
          `Lighthouse ${result.pagespeed.lighthouse_version} score ${result.pagespeed.score}/100: FCP ${Math.round(result.pagespeed.metrics.fcp_ms)} ms, LCP ${Math.round(result.pagespeed.metrics.lcp_ms)} ms, TBT ${Math.round(result.pagespeed.metrics.tbt_ms)} ms, CLS ${result.pagespeed.metrics.cls}, SI ${Math.round(result.pagespeed.metrics.si_ms)} ms.`,
        ),
      )
    : null;
  const warnings = result.warnings.length
    ? el(
        'section',
        { 'aria-labelledby': 'warnings-heading' },
        el('h2', { id: 'warnings-heading' }, 'Warnings'),
        el(
          'ul',
          {},
          result.warnings.map((w) => el('li', {}, `${w.message} (${w.code})`)),
        ),
      )
    : null;

  const sections = [
    cards,
    summary,
    trackers,
    cookieSection(result.cookies),
    consentSection,
    lossSection,
    pagespeed,
    warnings,
  ].filter(Boolean);
  target.replaceChildren(
    el(
      'h2',
      {},
      'Result for ',
      el('a', { href: result.final_url, rel: 'noopener noreferrer nofollow' }, result.final_url),
    ),
    el('p', { class: 'hint', 'data-testid': 'scanned-at' }, `Scanned ${date(result.scanned_at)}`),
    ...sections,
  );
  if (figures.length && window.Chart) {
    if (lossChart) lossChart.destroy();
    lossChart = new window.Chart(document.getElementById('loss-chart'), {
      type: 'bar',
      data: {
        labels: figures.flatMap(([label]) => [`${label}: today`, `${label}: server-side`]),
        datasets: [
          {
            label: 'Consent refusal',
            data: figures.flatMap(([, f]) => [f.by_cause.consent, f.by_cause.consent]),
            backgroundColor: '#b54708',
          },
          {
            label: 'Ad blockers',
            data: figures.flatMap(([, f]) => [f.by_cause.ad_blockers, null]),
            backgroundColor: '#b42318',
          },
          {
            label: 'Safari ITP',
            data: figures.flatMap(([, f]) => [f.by_cause.itp, null]),
            backgroundColor: '#6941c6',
          },
          {
            label: 'Other losses with server-side',
            data: figures.flatMap(([, f]) => [null, Math.max(0, f.lost_pct_with_server_side - f.by_cause.consent)]),
            backgroundColor: '#667085',
          },
        ],
      },
      options: {
        indexAxis: 'y',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { x: { stacked: true, max: 100, title: { display: true, text: '% lost' } }, y: { stacked: true } },
      },
    });
  }
}
