import type { Reply } from './api-types.js';
import { $, api, bindForm, el } from './ui.js';
import { renderResult } from './scan-result.js';
import { followScan, scanAsync } from './scan-progress.js';

// Showing a scan result: a stored scan on the dashboard (followed while it still runs), or a new scan from the
// checker form (signed in: started asynchronously, with what the scanner is doing shown until the result).
const resultBox = $('#scan-result');
if (resultBox?.dataset.scanId) {
  const status = resultBox.querySelector('p')!;
  followScan(resultBox.dataset.scanId, (text) => {
    status.textContent = text;
  })
    .then((result) => renderResult(result, resultBox))
    .catch((error) => resultBox.replaceChildren(el('p', { class: 'error' }, error.message)));
}

const checkForm = $<HTMLFormElement>('#check-form');
if (checkForm) {
  const signedIn = Boolean($('#sign-out'));
  const progress = $('#check-progress');
  const initialProgress = progress.textContent;
  bindForm(checkForm, $('#check-error'), async (data) => {
    progress.textContent = initialProgress;
    progress.hidden = false;
    resultBox.replaceChildren();
    try {
      const body = {
        url: String(data.get('url')).trim(),
        language: data.get('language'),
        ai_summary: data.get('ai_summary') === 'on',
        pagespeed: data.get('pagespeed') === 'on',
      };
      const result = signedIn
        ? await scanAsync(body, (text) => {
            progress.textContent = text;
          })
        : await api<Reply<'/api/v1/tracking-checker/scan/', 'post'>>(
            'POST',
            '/api/public/tracking-checker/scan/',
            body,
          );
      renderResult(result, resultBox);
      resultBox.querySelector('h2')!.setAttribute('tabindex', '-1');
      resultBox.querySelector('h2')!.focus();
    } finally {
      progress.hidden = true;
    }
  });
}
