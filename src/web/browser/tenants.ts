import type { Reply } from './api-types.js';
import { $, api, bindForm, day, el } from './ui.js';

// Overview: tenants
const tenantsTable = $('#tenants-table');
async function loadTenants() {
  const [session, tenants] = await Promise.all([
    api<Reply<'/api/auth/session'>>('GET', '/api/auth/session'),
    api<Reply<'/api/tenants/'>>('GET', '/api/tenants/?page_size=100'),
  ]);
  const body = tenantsTable.querySelector('tbody')!;
  body.replaceChildren(
    ...tenants.results.map((tenant) =>
      el(
        'tr',
        {},
        el('td', {}, tenant.name, tenant.parent_id ? el('span', { class: 'pill' }, 'client') : null),
        el('td', {}, tenant.plan),
        el('td', {}, tenant.id === session.tenant_id ? session.role : '—'),
        el('td', {}, String(tenant.features.tracking_checker_api_hourly ?? '—')),
        el('td', {}, day(tenant.created_at)),
      ),
    ),
  );
  const own = tenants.results.find((tenant) => tenant.id === session.tenant_id);
  $('#client-form').hidden = !(own && own.features.can_own_clients === true);
}
if (tenantsTable) {
  loadTenants().catch((error) =>
    tenantsTable
      .querySelector('tbody')!
      .replaceChildren(el('tr', {}, el('td', { colspan: 5, class: 'error' }, error.message))),
  );
  bindForm($<HTMLFormElement>('#client-form'), $('#client-error'), async (data) => {
    await api('POST', '/api/tenants/', { name: data.get('name') });
    $<HTMLFormElement>('#client-form').reset();
    await loadTenants();
  });
}
