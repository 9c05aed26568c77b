import type { Reply, Schemas } from './api-types.js';
import { $, api, bindForm, el } from './ui.js';
import { renderResult } from './scan-result.js';

// Showing a scan result: a stored scan on the dashboard, or a new scan from the checker form.
const resultBox = $('#scan-result');
if (resultBox?.dataset.scanId) {
  api<Schemas['ScanResult']>('GET', `/api/v1/tracking-checker/scans/${resultBox.dataset.scanId}/`)
    .then((result) => renderResult(result, resultBox))
    .catch((error) => resultBox.replaceChildren(el('p', { class: 'error' }, error.message)));
}

const checkForm = $<HTMLFormElement>('#check-form');
if (checkForm) {
  const signedIn = Boolean($('#sign-out'));
  bindForm(checkForm, $('#check-error'), async (data) => {
    $('#check-progress').hidden = false;
    resultBox.replaceChildren();
    try {
      const body = {
        url: String(data.get('url')).trim(),
        language: data.get('language'),
        ai_summary: data.get('ai_summary') === 'on',
        pagespeed: data.get('pagespeed') === 'on',
      };
      const result = await api<Reply<'/api/v1/tracking-checker/scan/', 'post'>>(
        'POST',
        signedIn ? '/api/v1/tracking-checker/scan/' : '/api/public/tracking-checker/scan/',
        body,
      );
      renderResult(result, resultBox);
      resultBox.querySelector('h2')!.setAttribute('tabindex', '-1');
      resultBox.querySelector('h2')!.focus();
    } finally {
      $('#check-progress').hidden = true;
    }
  });
}
