// A scan result's estimated data loss: the table by cause, the chart of it and the model's assumptions.
import type { Schemas } from './api-types.js';
import type { Chart } from './chart.js';
import { el } from './ui.js';

type LossEstimate = Schemas['ScanResult']['loss_estimate'];
type LossFigure = NonNullable<LossEstimate['analytics_events']>;
/** A measured kind of data (analytics events, ad conversions) with its loss figure. */
export type LabelledFigure = [label: string, figure: LossFigure];

let lossChart: Chart | null = null;

/** The kinds of data the scan found trackers measuring, each with what is lost of it. */
export function lossFigures(loss: LossEstimate): LabelledFigure[] {
  const figures: Array<[string, LossFigure | null]> = [
    ['Analytics events', loss.analytics_events],
    ['Ad conversions', loss.ad_conversions],
  ];
  return figures.filter((entry): entry is LabelledFigure => Boolean(entry[1]));
}

function lossTable(figures: LabelledFigure[]) {
  return el(
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
  );
}

/** The "Estimated data loss" section; its chart is drawn by drawLossChart once the section is in the page. */
export function lossSection(loss: LossEstimate, figures: LabelledFigure[]) {
  const section = el(
    'section',
    { 'aria-labelledby': 'loss-heading' },
    el('h2', { id: 'loss-heading' }, 'Estimated data loss'),
  );
  if (figures.length) {
    section.append(
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
    section.append(el('div', { class: 'table-wrap' }, lossTable(figures)));
  } else {
    section.append(el('p', {}, 'No measuring trackers found, so nothing is lost.'));
  }
  section.append(el('p', {}, loss.explanation));
  section.append(
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
  return section;
}

/** Draws the loss by cause, today and with server-side tagging, on #loss-chart (when chart.js is loaded). */
export function drawLossChart(figures: LabelledFigure[]) {
  if (!figures.length || !window.Chart) return;
  if (lossChart) lossChart.destroy();
  lossChart = new window.Chart(document.getElementById('loss-chart') as HTMLCanvasElement, {
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
