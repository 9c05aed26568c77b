// Tagport web UI: plain browser JavaScript, no build step. Talks to the JSON API with the session cookie.
(() => {
  const $ = (selector) => document.querySelector(selector);

  /** Builds DOM nodes; text is always set as text, never parsed as HTML. */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === false || value === null || value === undefined) continue;
      if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat())
      if (child !== null && child !== undefined && child !== false)
        node.append(child instanceof Node ? child : String(child));
    return node;
  }

  let csrfToken = null;
  async function csrf() {
    if (!csrfToken) csrfToken = (await api('GET', '/api/auth/session')).csrf_token;
    return csrfToken;
  }

  async function api(method, path, body) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (
      method !== 'GET' &&
      !path.startsWith('/api/auth/login') &&
      !path.startsWith('/api/setup') &&
      !path.startsWith('/api/public/')
    )
      headers['x-csrf-token'] = await csrf();
    const response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (response.status === 401 && location.pathname.startsWith('/dashboard'))
        location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      const error = new Error(data.error?.message || `Request failed (${response.status})`);
      error.status = response.status;
      error.body = data;
      throw error;
    }
    return data;
  }

  function showError(target, error) {
    target.textContent = error ? error.message : '';
    target.hidden = !error;
  }

  const date = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
  const day = (iso) => (iso ? new Date(iso).toLocaleDateString() : '—');

  function bindForm(form, errorBox, submit) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      showError(errorBox, null);
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        await submit(new FormData(form));
      } catch (error) {
        showError(errorBox, error);
      } finally {
        button.disabled = false;
      }
    });
  }

  // Sign in, set-up, sign out
  const loginForm = $('#login-form');
  if (loginForm) {
    bindForm(loginForm, $('#login-error'), async (data) => {
      await api('POST', '/api/auth/login', { email: data.get('email'), password: data.get('password') });
      const next = new URLSearchParams(location.search).get('next');
      location.href = next?.startsWith('/') && !next.startsWith('//') ? next : '/dashboard';
    });
  }
  const setupForm = $('#setup-form');
  if (setupForm) {
    bindForm(setupForm, $('#setup-error'), async (data) => {
      const account = Object.fromEntries(data.entries());
      await api('POST', '/api/setup/', account);
      await api('POST', '/api/auth/login', { email: account.email, password: account.password });
      location.href = '/dashboard';
    });
  }
  const signOut = $('#sign-out');
  if (signOut)
    signOut.addEventListener('click', async () => {
      await api('POST', '/api/auth/logout').catch(() => {});
      location.href = '/login';
    });

  // Overview: tenants
  const tenantsTable = $('#tenants-table');
  async function loadTenants() {
    const [session, tenants] = await Promise.all([
      api('GET', '/api/auth/session'),
      api('GET', '/api/tenants/?page_size=100'),
    ]);
    const body = tenantsTable.querySelector('tbody');
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
        .querySelector('tbody')
        .replaceChildren(el('tr', {}, el('td', { colspan: 5, class: 'error' }, error.message))),
    );
    bindForm($('#client-form'), $('#client-error'), async (data) => {
      await api('POST', '/api/tenants/', { name: data.get('name') });
      $('#client-form').reset();
      await loadTenants();
    });
  }

  // API keys
  const keysTable = $('#keys-table');
  async function loadKeys() {
    const keys = await api('GET', '/api/api-keys/?page_size=100');
    const body = keysTable.querySelector('tbody');
    if (keys.results.length === 0) return body.replaceChildren(el('tr', {}, el('td', { colspan: 8 }, 'No keys yet.')));
    body.replaceChildren(
      ...keys.results.map((key) =>
        el(
          'tr',
          { 'data-key-id': key.id },
          el('td', {}, key.name),
          el('td', {}, el('code', {}, `${key.token_start}…${key.token_last4}`)),
          el('td', {}, key.role),
          el('td', {}, date(key.created_at)),
          el('td', {}, key.last_used_at ? date(key.last_used_at) : 'never'),
          el('td', {}, key.expires_at ? day(key.expires_at) : 'never'),
          el('td', { class: `status-${key.status}` }, key.status),
          el(
            'td',
            {},
            key.status === 'active'
              ? el(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    'aria-label': `Revoke ${key.name}`,
                    onclick: () => revokeKey(key),
                  },
                  'Revoke',
                )
              : null,
          ),
        ),
      ),
    );
  }
  async function revokeKey(key) {
    if (!window.confirm(`Revoke the key "${key.name}"? Requests using it will fail at once.`)) return;
    try {
      await api('DELETE', `/api/api-keys/${key.id}/`);
      await loadKeys();
    } catch (error) {
      showError($('#key-error'), error);
    }
  }
  if (keysTable) {
    loadKeys().catch((error) => showError($('#key-error'), error));
    bindForm($('#key-form'), $('#key-error'), async (data) => {
      const body = { name: data.get('name'), role: data.get('role') };
      if (data.get('expires_at')) body.expires_at = new Date(`${data.get('expires_at')}T23:59:59Z`).toISOString();
      const key = await api('POST', '/api/api-keys/', body);
      $('#key-form').reset();
      $('#new-key-token').textContent = key.token;
      $('#copy-status').textContent = '';
      $('#new-key').hidden = false;
      $('#copy-token').focus();
      await loadKeys();
    });
    $('#copy-token').addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText($('#new-key-token').textContent);
        $('#copy-status').textContent = 'Copied.';
      } catch {
        const range = document.createRange();
        range.selectNodeContents($('#new-key-token'));
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        $('#copy-status').textContent = 'Selected: press Ctrl+C to copy.';
      }
    });
    $('#dismiss-token').addEventListener('click', () => {
      $('#new-key-token').textContent = '';
      $('#new-key').hidden = true;
    });
  }

  // Scans
  const scansTable = $('#scans-table');
  let scansPage = 1;
  async function loadScans() {
    const scans = await api('GET', `/api/v1/tracking-checker/scans/?page=${scansPage}&page_size=20`);
    const body = scansTable.querySelector('tbody');
    body.replaceChildren(
      ...(scans.results.length
        ? scans.results.map((scan) =>
            el(
              'tr',
              {},
              el(
                'td',
                {},
                scan.status === 'completed'
                  ? el('a', { href: `/dashboard/scans/${scan.scan_id}` }, scan.url)
                  : scan.url,
              ),
              el('td', { class: `status-${scan.status}` }, scan.status, scan.error ? ` (${scan.error.message})` : ''),
              el('td', {}, scan.tracker_count === null ? '—' : String(scan.tracker_count)),
              el('td', {}, scan.language),
              el('td', {}, date(scan.created_at)),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5 }, 'No scans yet.'))]),
    );
    $('#scans-prev').disabled = !scans.previous;
    $('#scans-next').disabled = !scans.next;
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

  // Containers and domains
  const containersTable = $('#containers-table');
  let usageChart = null;
  async function showUsage(container) {
    const usage = await api('GET', `/api/containers/${container.id}/usage/`);
    $('#usage-caption').textContent = `${container.name}: ${usage.total_requests} requests (${
      Object.entries(usage.by_status_class)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none yet'
    })`;
    if (!window.Chart) return;
    if (usageChart) usageChart.destroy();
    usageChart = new window.Chart($('#usage-chart'), {
      type: 'bar',
      data: {
        labels: usage.days.map((d) => d.day),
        datasets: [{ label: 'Requests', data: usage.days.map((d) => d.requests), backgroundColor: '#0b5cad' }],
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true } } },
    });
  }
  async function containerAction(container, action) {
    if (action === 'delete' && !window.confirm(`Delete the container "${container.name}"?`)) return;
    try {
      await api(
        action === 'delete' ? 'DELETE' : 'POST',
        action === 'delete' ? `/api/containers/${container.id}/` : `/api/containers/${container.id}/${action}/`,
      );
    } catch (error) {
      showError($('#container-error'), error);
    }
    await loadContainers();
    setTimeout(loadContainers, 2500);
  }
  async function loadContainers() {
    const list = await api('GET', '/api/containers/?page_size=100');
    containersTable.querySelector('tbody').replaceChildren(
      ...(list.results.length
        ? list.results.map((container) =>
            el(
              'tr',
              {},
              el(
                'td',
                {},
                el('button', { type: 'button', class: 'link', onclick: () => showUsage(container) }, container.name),
              ),
              el(
                'td',
                { class: container.status === 'running' ? 'yes' : container.status === 'failed' ? 'no' : '' },
                container.status,
                container.status_reason ? ` (${container.status_reason})` : '',
              ),
              el('td', {}, container.region),
              el('td', {}, el('code', {}, container.default_hostname)),
              el(
                'td',
                {},
                container.allowed_actions.map((action) =>
                  el(
                    'button',
                    {
                      type: 'button',
                      class: action === 'delete' ? 'danger' : '',
                      onclick: () => containerAction(container, action),
                    },
                    action,
                  ),
                ),
              ),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5 }, 'No containers yet.'))]),
    );
    $('#domain-container').replaceChildren(
      ...list.results.map((container) => el('option', { value: container.id }, container.name)),
    );
    await loadDomains();
  }
  async function loadDomains() {
    const domains = await api('GET', '/api/domains/?page_size=100');
    $('#domains-list').replaceChildren(
      ...(domains.results.length
        ? domains.results.map((domain) =>
            el(
              'section',
              { class: 'card' },
              el(
                'h3',
                {},
                domain.hostname,
                ' ',
                el(
                  'span',
                  { class: domain.status === 'active' ? 'yes' : domain.status === 'failed' ? 'no' : '' },
                  domain.status.replace('_', ' '),
                ),
              ),
              domain.failure_detail ? el('p', { class: 'error' }, domain.failure_detail) : null,
              el(
                'table',
                {},
                el(
                  'thead',
                  {},
                  el(
                    'tr',
                    {},
                    ['Type', 'Name', 'Value', 'Purpose'].map((h) => el('th', { scope: 'col' }, h)),
                  ),
                ),
                el(
                  'tbody',
                  {},
                  domain.dns_records.map((record) =>
                    el(
                      'tr',
                      {},
                      el('td', {}, record.type),
                      el('td', {}, el('code', {}, record.name)),
                      el('td', {}, el('code', {}, record.value)),
                      el('td', {}, record.purpose),
                    ),
                  ),
                ),
              ),
              el(
                'button',
                {
                  type: 'button',
                  onclick: async () => {
                    try {
                      await api('POST', `/api/domains/${domain.id}/verify/`);
                    } catch (error) {
                      showError($('#domain-error'), error);
                    }
                    await loadDomains();
                  },
                },
                'Verify now',
              ),
            ),
          )
        : [el('p', {}, 'No custom domains yet.')]),
    );
  }
  if (containersTable) {
    loadContainers().catch((error) => showError($('#container-error'), error));
    bindForm($('#container-form'), $('#container-error'), async (data) => {
      const body = { name: data.get('name'), region: data.get('region'), config: data.get('config') };
      if (data.get('upstream_url')) body.upstream_url = data.get('upstream_url');
      await api('POST', '/api/containers/', body);
      $('#container-form').reset();
      await loadContainers();
      setTimeout(loadContainers, 2500);
    });
    bindForm($('#domain-form'), $('#domain-error'), async (data) => {
      await api('POST', '/api/domains/', { hostname: data.get('hostname'), container_id: data.get('container_id') });
      $('#domain-form').reset();
      await loadDomains();
    });
  }

  // Monitors
  const monitorsTable = $('#monitors-table');
  async function loadMonitors() {
    const [monitors, incidents] = await Promise.all([
      api('GET', '/api/monitors/?page_size=100'),
      api('GET', '/api/incidents/?page_size=20'),
    ]);
    const names = Object.fromEntries(monitors.results.map((monitor) => [monitor.id, monitor.name]));
    monitorsTable
      .querySelector('tbody')
      .replaceChildren(
        ...(monitors.results.length
          ? monitors.results.map((monitor) =>
              el(
                'tr',
                {},
                el('td', {}, el('a', { href: `/dashboard/monitors/${monitor.id}` }, monitor.name)),
                el('td', {}, monitor.target.url),
                el(
                  'td',
                  { class: monitor.status === 'up' ? 'yes' : monitor.status === 'down' ? 'no' : '' },
                  monitor.status,
                ),
                el('td', {}, `${monitor.interval_seconds} s`),
                el('td', {}, date(monitor.last_checked_at)),
              ),
            )
          : [el('tr', {}, el('td', { colspan: 5 }, 'No monitors yet.'))]),
      );
    $('#incidents-table tbody').replaceChildren(
      ...(incidents.results.length
        ? incidents.results.map((incident) =>
            el(
              'tr',
              {},
              el('td', {}, names[incident.monitor_id] || incident.monitor_id),
              el('td', { class: incident.status === 'resolved' ? 'yes' : 'no' }, incident.status),
              el('td', {}, incident.cause),
              el('td', {}, date(incident.opened_at)),
              el(
                'td',
                {},
                incident.status === 'open'
                  ? el(
                      'button',
                      { type: 'button', onclick: () => incidentAction(incident, 'acknowledge') },
                      'Acknowledge',
                    )
                  : null,
                incident.status !== 'resolved'
                  ? el(
                      'button',
                      { type: 'button', class: 'danger', onclick: () => incidentAction(incident, 'resolve') },
                      'Resolve',
                    )
                  : null,
              ),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5 }, 'No incidents.'))]),
    );
  }
  async function incidentAction(incident, action) {
    try {
      await api('POST', `/api/incidents/${incident.id}/${action}/`);
    } catch (error) {
      showError($('#monitor-error'), error);
    }
    await loadMonitors();
  }
  // Targets: a URL, or one of the tenant's containers or custom domains (value "container:ctr_…").
  async function loadMonitorTargets() {
    const [containers, domains] = await Promise.all([
      api('GET', '/api/containers/?page_size=100'),
      api('GET', '/api/domains/?page_size=100'),
    ]);
    const group = (label, items) => (items.length ? [el('optgroup', { label }, ...items)] : []);
    $('#monitor-target-kind').append(
      ...group(
        'Containers',
        containers.results.map((container) =>
          el('option', { value: `container:${container.id}` }, `${container.name} (${container.default_hostname})`),
        ),
      ),
      ...group(
        'Custom domains',
        domains.results.map((domain) => el('option', { value: `domain:${domain.id}` }, domain.hostname)),
      ),
    );
  }
  function showTargetFields() {
    const isUrl = $('#monitor-target-kind').value === 'url';
    $('#monitor-url-field').hidden = !isUrl;
    $('#monitor-url').required = isUrl;
    $('#monitor-path-field').hidden = isUrl;
  }
  function monitorTarget(data) {
    const [type, id] = data.get('target').split(':');
    if (type === 'url') return { type, url: data.get('url') };
    return { type, [`${type}_id`]: id, path: data.get('path') || '/' };
  }
  if (monitorsTable) {
    loadMonitors().catch((error) => showError($('#monitor-error'), error));
    loadMonitorTargets().catch((error) => showError($('#monitor-error'), error));
    $('#monitor-target-kind').addEventListener('change', showTargetFields);
    bindForm($('#monitor-form'), $('#monitor-error'), async (data) => {
      await api('POST', '/api/monitors/', {
        name: data.get('name'),
        target: monitorTarget(data),
        interval_seconds: Number(data.get('interval_seconds')),
      });
      $('#monitor-form').reset();
      showTargetFields();
      await loadMonitors();
    });
  }

  const monitorDetail = $('#monitor-detail');
  let latencyChart = null;
  async function loadMonitor() {
    const id = monitorDetail.dataset.monitorId;
    const [monitor, stats, checks] = await Promise.all([
      api('GET', `/api/monitors/${id}/`),
      api('GET', `/api/monitors/${id}/stats/`),
      api('GET', `/api/monitors/${id}/checks/?page_size=100`),
    ]);
    $('#monitor-title').textContent = monitor.name;
    $('#monitor-status').textContent = `Status: ${monitor.status}`;
    $('#monitor-target').textContent = monitor.target.url;
    $('#monitor-toggle').textContent = monitor.status === 'paused' ? 'Resume' : 'Pause';
    $('#monitor-toggle').onclick = async () => {
      await api('POST', `/api/monitors/${id}/${monitor.status === 'paused' ? 'resume' : 'pause'}/`);
      await loadMonitor();
    };
    const pct = (value) => (value === null ? '—' : `${value}%`);
    $('#monitor-stats').replaceChildren(
      ...[
        ['24 hours', stats.last_24h],
        ['7 days', stats.last_7d],
        ['30 days', stats.last_30d],
      ].map(([label, window]) =>
        el(
          'div',
          { class: 'card' },
          el('div', {}, `Uptime, ${label}`),
          el('div', { class: 'big' }, pct(window.uptime_pct)),
          el(
            'div',
            { class: 'hint' },
            `p50 ${window.p50_ms ?? '—'} ms · p95 ${window.p95_ms ?? '—'} ms · ${window.checks} checks`,
          ),
        ),
      ),
    );
    $('#checks-table tbody').replaceChildren(
      ...checks.results
        .slice(0, 30)
        .map((check) =>
          el(
            'tr',
            {},
            el('td', {}, date(check.checked_at)),
            el('td', { class: check.result === 'down' ? 'no' : 'yes' }, check.result),
            el('td', {}, check.status_code ?? '—'),
            el('td', {}, check.latency_ms === null ? '—' : `${check.latency_ms} ms`),
            el('td', {}, check.error || ''),
          ),
        ),
    );
    if (window.Chart) {
      const points = [...checks.results].reverse();
      if (latencyChart) latencyChart.destroy();
      latencyChart = new window.Chart($('#latency-chart'), {
        type: 'line',
        data: {
          labels: points.map((check) => new Date(check.checked_at).toLocaleTimeString()),
          datasets: [
            {
              label: 'Latency (ms)',
              data: points.map((check) => check.latency_ms),
              borderColor: '#0b5cad',
              pointBackgroundColor: points.map((check) => (check.result === 'down' ? '#b42318' : '#0b5cad')),
              spanGaps: false,
            },
          ],
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          scales: { y: { beginAtZero: true, title: { display: true, text: 'ms' } } },
        },
      });
    }
  }
  if (monitorDetail) loadMonitor().catch((error) => monitorDetail.append(el('p', { class: 'error' }, error.message)));

  // Reports
  const reportsTable = $('#reports-table');
  async function loadReports() {
    const reports = await api('GET', '/api/reports/?page_size=50');
    reportsTable
      .querySelector('tbody')
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
                el(
                  'td',
                  {},
                  report.download_url ? el('a', { href: report.download_url, download: '' }, 'Download') : '',
                ),
              ),
            )
          : [el('tr', {}, el('td', { colspan: 5 }, 'No reports yet.'))]),
      );
    if (reports.results.some((report) => report.status === 'queued' || report.status === 'running'))
      setTimeout(loadReports, 1000);
  }
  if (reportsTable) {
    loadReports().catch((error) => showError($('#report-error'), error));
    bindForm($('#report-form'), $('#report-error'), async (data) => {
      await api('POST', '/api/reports/', {
        kind: data.get('kind'),
        format: data.get('format'),
        period_start: `${data.get('start')}T00:00:00Z`,
        period_end: `${data.get('end')}T00:00:00Z`,
      });
      await loadReports();
    });
  }

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

  /** yes/no, coloured only where one answer is a problem (`bad` is the worrying value). */
  function yesNo(value, bad) {
    if (value === null || value === undefined) return el('span', {}, 'unknown');
    return el('span', { class: bad === undefined ? '' : value === bad ? 'no' : 'yes' }, value ? 'yes' : 'no');
  }

  function renderResult(result, target) {
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
        el('div', { class: 'big' }, consent.cmp ? consent.cmp.name : 'none'),
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
        el('li', {}, 'Consent management platform: ', consent.cmp ? consent.cmp.name : 'none found'),
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
                ([label, f]) =>
                  `${label}: ${f.lost_pct}% lost, ${f.lost_pct_with_server_side}% with server-side tagging`,
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

    const sections = [cards, summary, trackers, consentSection, lossSection, pagespeed, warnings].filter(Boolean);
    target.replaceChildren(
      el(
        'h2',
        {},
        'Result for ',
        el('a', { href: result.final_url, rel: 'noopener noreferrer nofollow' }, result.final_url),
      ),
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

  const resultBox = $('#scan-result');
  if (resultBox?.dataset.scanId) {
    api('GET', `/api/v1/tracking-checker/scans/${resultBox.dataset.scanId}/`)
      .then((result) => renderResult(result, resultBox))
      .catch((error) => resultBox.replaceChildren(el('p', { class: 'error' }, error.message)));
  }

  const checkForm = $('#check-form');
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
        const result = await api(
          'POST',
          signedIn ? '/api/v1/tracking-checker/scan/' : '/api/public/tracking-checker/scan/',
          body,
        );
        renderResult(result, resultBox);
        resultBox.querySelector('h2').setAttribute('tabindex', '-1');
        resultBox.querySelector('h2').focus();
      } finally {
        $('#check-progress').hidden = true;
      }
    });
  }
})();
