import type { Reply } from './api-types.js';
import { $, api, bindForm, date, el, showError } from './ui.js';

// Reports
const reportsTable = $('#reports-table');
async function loadReports() {
  const reports = await api<Reply<'/api/reports/'>>('GET', '/api/reports/?page_size=50');
  reportsTable
    .querySelector('tbody')!
    .replaceChildren(
      ...(reports.results.length
        ? reports.results.map((report) =>
            el(
              'tr',
              {},
              el('td', {}, `${report.kind} (${report.format})`),
              el('td', {}, `${report.period_start.slice(0, 10)} – ${report.period_end.slice(0, 10)}`),
              el(
                'td',
                { class: report.status === 'failed' ? 'no' : report.status === 'ready' ? 'yes' : '' },
                report.status,
                report.error ? ` (${report.error})` : '',
              ),
              el('td', {}, date(report.created_at)),
              el('td', {}, report.download_url ? el('a', { href: report.download_url, download: '' }, 'Download') : ''),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5 }, 'No reports yet.'))]),
    );
  if (reports.results.some((report) => report.status === 'queued' || report.status === 'running'))
    setTimeout(loadReports, 1000);
}
if (reportsTable) {
  loadReports().catch((error) => showError($('#report-error'), error));
  bindForm($<HTMLFormElement>('#report-form'), $('#report-error'), async (data) => {
    await api('POST', '/api/reports/', {
      kind: data.get('kind'),
      format: data.get('format'),
      period_start: `${data.get('start')}T00:00:00Z`,
      period_end: `${data.get('end')}T00:00:00Z`,
    });
    await loadReports();
  });
}
