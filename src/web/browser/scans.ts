import type { Reply } from './api-types.js';
import { $, api, date, el } from './ui.js';

// Scans
const scansTable = $('#scans-table');
let scansPage = 1;
async function loadScans() {
  const scans = await api<Reply<'/api/v1/tracking-checker/scans/'>>(
    'GET',
    `/api/v1/tracking-checker/scans/?page=${scansPage}&page_size=20`,
  );
  const body = scansTable.querySelector('tbody')!;
  body.replaceChildren(
    ...(scans.results.length
      ? scans.results.map((scan) =>
          el(
            'tr',
            {},
            el(
              'td',
              {},
              scan.status === 'completed' ? el('a', { href: `/dashboard/scans/${scan.scan_id}` }, scan.url) : scan.url,
            ),
            el('td', { class: `status-${scan.status}` }, scan.status, scan.error ? ` (${scan.error.message})` : ''),
            el('td', {}, scan.tracker_count === null ? '—' : String(scan.tracker_count)),
            el('td', {}, scan.language),
            el('td', {}, date(scan.created_at)),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 5 }, 'No scans yet.'))]),
  );
  $<HTMLButtonElement>('#scans-prev').disabled = !scans.previous;
  $<HTMLButtonElement>('#scans-next').disabled = !scans.next;
}
if (scansTable) {
  loadScans();
  $('#scans-prev').addEventListener('click', () => {
    scansPage -= 1;
    loadScans();
  });
  $('#scans-next').addEventListener('click', () => {
    scansPage += 1;
    loadScans();
  });
}
