// Scan result rendering (dashboard result view and public checker): one function per section of the result.
import type { Schemas } from './api-types.js';
import { drawLossChart, lossFigures, lossSection } from './scan-loss.js';
import { date, el } from './ui.js';

type ScanResult = Schemas['ScanResult'];
type Tracker = ScanResult['trackers'][number];
type Consent = ScanResult['consent'];

const CATEGORY_NAMES: Partial<Record<Tracker['category'], string>> = {
  tag_manager: 'Tag managers',
  analytics: 'Analytics',
  advertising: 'Advertising',
  session_replay: 'Session replay',
  social: 'Social',
  customer_data_platform: 'Customer data platforms',
  marketing: 'Marketing',
};

/** The consent platform's name; a banner no rule knows has none. */
function cmpName(cmp: Consent['cmp'], absent: string) {
  if (!cmp) return absent;
  return cmp.name ?? 'unnamed (banner visible)';
}

/** yes/no, coloured only where one answer is a problem (`bad` is the worrying value). */
function yesNo(value: boolean | null | undefined, bad?: boolean) {
  if (value === null || value === undefined) return el('span', {}, 'unknown');
  return el('span', { class: bad === undefined ? '' : value === bad ? 'no' : 'yes' }, value ? 'yes' : 'no');
}

function card(label: string, value: string, testId?: string) {
  return el('div', { class: 'card' }, el('div', {}, label), el('div', { class: 'big', 'data-testid': testId }, value));
}

/** The headline figures: trackers, consent banner, server-side tagging and (when measured) performance. */
function cardsSection(result: ScanResult) {
  return el(
    'div',
    { class: 'cards' },
    card('Trackers found', String(result.trackers.length), 'tracker-count'),
    card('Consent banner (CMP)', cmpName(result.consent.cmp, 'none')),
    card('Server-side tagging', result.server_side_tagging.detected ? 'yes' : 'no'),
    result.pagespeed ? card('Performance score', String(result.pagespeed.score), 'pagespeed-score') : null,
  );
}

/** The written summary and its recommendations, when one was asked for. */
function summarySection(summary: ScanResult['ai_summary']) {
  if (!summary) return null;
  return el(
    'section',
    { 'aria-labelledby': 'summary-heading' },
    el('h2', { id: 'summary-heading' }, 'Summary'),
    el('p', {}, summary.text),
    el(
      'ul',
      {},
      summary.recommendations.map((r) => el('li', {}, r)),
    ),
    el('p', { class: 'hint' }, `Written by: ${summary.provider}${summary.model ? ` (${summary.model})` : ''}`),
  );
}

/** One category's trackers: their ids, where they run and whether they fire before consent. */
function trackerGroup(category: string, list: Tracker[]) {
  return el(
    'div',
    { class: 'tracker-group' },
    el('h3', {}, `${CATEGORY_NAMES[category as Tracker['category']] || category} (${list.length})`),
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
              el('td', {}, tracker.ids.length ? tracker.ids.map((id) => el('code', { class: 'pill' }, id)) : '—'),
              el('td', {}, yesNo(tracker.first_party)),
              el('td', {}, yesNo(tracker.server_side)),
              el('td', {}, yesNo(tracker.fires_before_consent, true)),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The trackers found, grouped by category in the order the scan found them. */
function trackersSection(trackers: Tracker[]) {
  const byCategory: Record<string, Tracker[]> = {};
  for (const tracker of trackers) {
    byCategory[tracker.category] ??= [];
    byCategory[tracker.category].push(tracker);
  }
  return el(
    'section',
    { 'aria-labelledby': 'trackers-heading' },
    el('h2', { id: 'trackers-heading' }, 'Trackers by category'),
    trackers.length === 0
      ? el('p', {}, 'No trackers found.')
      : Object.entries(byCategory).map(([category, list]) => trackerGroup(category, list)),
  );
}

/** The cookies present after load without consent: who set them, how, and for how long. */
function cookieSection(cookies: ScanResult['cookies'] | undefined) {
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

/** The consent platform, Google Consent Mode and its defaults, and the tags that fire before consent. */
function consentSection(consent: Consent) {
  const mode = consent.consent_mode;
  return el(
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
}

/** Lighthouse's score and metrics, when the scan measured them. */
function pagespeedSection(pagespeed: ScanResult['pagespeed']) {
  if (!pagespeed) return null;
  const { metrics } = pagespeed;
  return el(
    'section',
    { 'aria-labelledby': 'perf-heading' },
    el('h2', { id: 'perf-heading' }, 'Page performance'),
    el(
      'p',
      {},
      `Lighthouse ${pagespeed.lighthouse_version} score ${pagespeed.score}/100: FCP ${Math.round(metrics.fcp_ms)} ms, LCP ${Math.round(metrics.lcp_ms)} ms, TBT ${Math.round(metrics.tbt_ms)} ms, CLS ${metrics.cls}, SI ${Math.round(metrics.si_ms)} ms.`,
    ),
  );
}

/** What the scan could not do fully, with each warning's code. */
function warningsSection(warnings: ScanResult['warnings']) {
  if (!warnings.length) return null;
  return el(
    'section',
    { 'aria-labelledby': 'warnings-heading' },
    el('h2', { id: 'warnings-heading' }, 'Warnings'),
    el(
      'ul',
      {},
      warnings.map((w) => el('li', {}, `${w.message} (${w.code})`)),
    ),
  );
}

/** Shows a scan result in `target`, replacing what it held. */
export function renderResult(result: ScanResult, target: HTMLElement) {
  const figures = lossFigures(result.loss_estimate);
  const sections = [
    cardsSection(result),
    summarySection(result.ai_summary),
    trackersSection(result.trackers),
    cookieSection(result.cookies),
    consentSection(result.consent),
    lossSection(result.loss_estimate, figures),
    pagespeedSection(result.pagespeed),
    warningsSection(result.warnings),
  ].filter((section) => section !== null);
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
  drawLossChart(figures);
}
