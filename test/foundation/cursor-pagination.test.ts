import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

// Cursor pagination (`starting_after` / `ending_before`) on every list: walking forward by `next` and back by
// `previous` returns each object once, in the list's order, the same order as paging by number. Rows are seeded in
// SQL with ties on the sort key (three rows a second) and sub-millisecond steps, so a cursor that lost its tie-breaker
// or its microseconds would skip or repeat rows. A cursor outside the list is a 400 that does not say whether the
// object exists elsewhere.

const ROWS = 23;
const GTM_CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=abcdefghij').toString('base64');
const PAGE_SIZE = 4;

interface Owner {
  tenantId: string;
  token: string;
  prefix: string;
  container: string;
  monitor: string;
  trackingMonitor: string;
  webhook: string;
  pixel: string;
  channel: string;
}

/** Each list, with the path to page and the field clients page by. */
const lists = (owner: Owner) => [
  { operation: 'listTenants', path: '/api/tenants/?status=all' },
  { operation: 'listApiKeys', path: '/api/api-keys/' },
  { operation: 'listScans', path: '/api/v1/tracking-checker/scans/', id: 'scan_id' },
  { operation: 'listContainers', path: '/api/containers/' },
  { operation: 'listContainerLogs', path: `/api/containers/${owner.container}/logs/` },
  { operation: 'listDomains', path: '/api/domains/' },
  { operation: 'listEvents', path: '/api/events/?type=container.status_changed' },
  { operation: 'listMembers', path: '/api/members/' },
  { operation: 'listInvitations', path: '/api/invitations/' },
  { operation: 'listMetaPixels', path: `/api/containers/${owner.container}/meta-pixels/` },
  { operation: 'listOutgoingLog', path: `/api/containers/${owner.container}/outgoing-log/` },
  { operation: 'listDelayedRequests', path: `/api/containers/${owner.container}/delayed-requests/` },
  { operation: 'listScheduleRuns', path: `/api/containers/${owner.container}/schedule-runs/` },
  {
    operation: 'listMetaPixelDeliveries',
    path: `/api/containers/${owner.container}/meta-pixels/${owner.pixel}/deliveries/`,
    id: 'event_id',
  },
  { operation: 'listMonitors', path: '/api/monitors/' },
  { operation: 'listMonitorChecks', path: `/api/monitors/${owner.monitor}/checks/` },
  { operation: 'listTrackingMonitors', path: '/api/tracking-monitors/' },
  { operation: 'listTrackingRuns', path: `/api/tracking-monitors/${owner.trackingMonitor}/runs/` },
  { operation: 'listTrackingIncidents', path: `/api/tracking-monitors/${owner.trackingMonitor}/incidents/` },
  { operation: 'listIncidents', path: '/api/incidents/' },
  { operation: 'listReports', path: '/api/reports/' },
  { operation: 'listWebhooks', path: '/api/webhooks/' },
  { operation: 'listWebhookDeliveries', path: `/api/webhooks/${owner.webhook}/deliveries/` },
  { operation: 'listNotificationChannels', path: '/api/notification-channels/' },
  {
    operation: 'listNotificationDeliveries',
    path: `/api/notification-channels/${owner.channel}/deliveries/`,
  },
];

describe.each(backends)('cursor pagination on %s', (backend) => {
  let t: TestApp;
  let owner: Owner;
  let other: Owner;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false, rateLimitPerMinute: 1_000_000 });
    const agency = await t.tenantWithKey('agency');
    owner = await seed(t.database.db, { ...agency, prefix: 'a' });
    const stranger = await t.tenantWithKey('agency');
    other = await seed(t.database.db, { ...stranger, prefix: 'b' });
  }, 60_000);
  afterAll(() => t?.close());

  const get = async (url: string, token = owner.token) => {
    const response = await t.inject({ method: 'GET', url, token });
    return { status: response.statusCode, body: response.json() };
  };
  const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;
  const relative = (link: string) => {
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  };

  const templates = {
    container: ':id',
    monitor: ':id',
    trackingMonitor: ':id',
    webhook: ':id',
    pixel: ':pixel',
    channel: ':id',
  } as Owner;

  it('covers every documented list (every operation with a starting_after parameter)', async () => {
    const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const paged = Object.values<Record<string, { operationId: string; parameters?: Array<{ name: string }> }>>(
      document.paths,
    )
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation.parameters?.some((parameter) => parameter.name === 'starting_after'))
      .map((operation) => operation.operationId);
    expect(paged.sort()).toEqual(
      lists(templates)
        .map((list) => list.operation)
        .sort(),
    );
  });
  for (const list of lists(templates)) {
    describe(`${list.operation} · GET ${list.path.split('?')[0]}`, () => {
      const idOf = (item: Record<string, string>) => item[list.id ?? 'id'];
      const pathOf = () => lists(owner).find((candidate) => candidate.operation === list.operation)!.path;

      it('walks forward by next and back by previous through every row once, in the list order', async () => {
        const path = pathOf();
        const all = await get(join(path, 'page_size=100'));
        expect(all.status, JSON.stringify(all.body)).toBe(200);
        const expected: string[] = all.body.results.map(idOf);
        expect(expected.length).toBeGreaterThanOrEqual(ROWS);

        const first = await get(join(path, `page_size=${PAGE_SIZE}`));
        const forward: string[] = first.body.results.map(idOf);
        let response = await get(join(path, `page_size=${PAGE_SIZE}&starting_after=${forward.at(-1)}`));
        const pages = [first.body];
        while (true) {
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          expect(response.body).toMatchObject({ page: null, page_size: PAGE_SIZE, count: expected.length });
          pages.push(response.body);
          forward.push(...response.body.results.map(idOf));
          if (!response.body.next) break;
          expect(new URL(response.body.next).searchParams.get('starting_after')).toBe(forward.at(-1));
          response = await get(relative(response.body.next));
        }
        expect(forward).toEqual(expected);
        expect(pages.at(-1).results.length).toBeGreaterThan(0);

        const backward: string[] = [...pages.at(-1).results.map(idOf)];
        let previous = pages.at(-1).previous;
        while (previous) {
          expect(new URL(previous).searchParams.get('ending_before')).toBe(backward[0]);
          const page = await get(relative(previous));
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          expect(page.body.results.length).toBeLessThanOrEqual(PAGE_SIZE);
          backward.unshift(...page.body.results.map(idOf));
          previous = page.body.previous;
        }
        expect(backward).toEqual(expected);
      });

      it('answers 400 invalid_cursor for an unknown id and for another tenant’s, alike', async () => {
        const path = pathOf();
        const foreignPath = lists(other).find((candidate) => candidate.operation === list.operation)!.path;
        const foreign = await get(join(foreignPath, 'page_size=1'), other.token);
        const foreignId = idOf(foreign.body.results[0]);
        for (const param of ['starting_after', 'ending_before']) {
          const unknown = await get(join(path, `${param}=${owner.prefix}_no_such_object`));
          const theirs = await get(join(path, `${param}=${foreignId}`));
          for (const answer of [unknown, theirs]) {
            expect(answer.status, JSON.stringify(answer.body)).toBe(400);
            expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_cursor', param });
          }
          expect(theirs.body.error.message).toBe(unknown.body.error.message);
        }
      });
    });
  }

  describe('listApiKeys · GET /api/api-keys/', () => {
    it('refuses two ways of paging at once with 400 conflicting_pagination', async () => {
      const [key] = (await get('/api/api-keys/?page_size=1')).body.results;
      for (const [query, param] of [
        [`starting_after=${key.id}&ending_before=${key.id}`, 'ending_before'],
        [`starting_after=${key.id}&page=2`, 'page'],
        [`ending_before=${key.id}&page=1`, 'page'],
      ]) {
        const answer = await get(`/api/api-keys/?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body.error).toMatchObject({ code: 'conflicting_pagination', param });
      }
    });

    it('keeps page links for a request by page number', async () => {
      const answer = await get('/api/api-keys/?page=2&page_size=4');
      expect(answer.body).toMatchObject({ page: 2, page_size: 4 });
      expect(new URL(answer.body.next).searchParams.get('page')).toBe('3');
      expect(new URL(answer.body.previous).searchParams.get('page')).toBe('1');
      expect(new URL(answer.body.next).searchParams.has('starting_after')).toBe(false);
    });

    it('has no previous link before the first object and no next link after the last', async () => {
      const all = (await get('/api/api-keys/?page_size=100')).body.results;
      const beforeFirst = await get(`/api/api-keys/?ending_before=${all[0].id}`);
      expect(beforeFirst.body).toMatchObject({ results: [], next: null, previous: null });
      const fromSecond = await get(`/api/api-keys/?ending_before=${all[1].id}`);
      expect(fromSecond.body.results.map((key: { id: string }) => key.id)).toEqual([all[0].id]);
      expect(fromSecond.body.previous).toBeNull();
      const afterLast = await get(`/api/api-keys/?starting_after=${all.at(-1).id}`);
      expect(afterLast.body).toMatchObject({ results: [], next: null, previous: null });
    });
  });
});

/** ROWS rows in every listed table for one tenant: three a second, every other one half a millisecond later. */
async function seed(db: Db, tenant: { tenantId: string; token: string; prefix: string }): Promise<Owner> {
  const p = tenant.prefix;
  const owner: Owner = {
    ...tenant,
    container: newId('container'),
    monitor: newId('monitor'),
    trackingMonitor: newId('trackingMonitor'),
    webhook: newId('webhook'),
    pixel: newId('metaPixel'),
    channel: newId('notificationChannel'),
  };
  const ten = tenant.tenantId;
  const at = sql.raw(
    `(timestamptz '2026-01-01 00:00:00Z' - make_interval(secs => i / 3) + (i % 2) * interval '500 microseconds')`,
  );
  const rows = sql.raw(`generate_series(1, ${ROWS}) i`);
  const id = (kind: string) => sql.raw(`'${kind}_${p}' || lpad(i::text, 4, '0')`);
  const statements = [
    sql`insert into tenants (id, name, plan_id, parent_id, status, created_at, updated_at)
        select ${id('ten')}, 'Client ' || i, 'free', ${ten}, case when i % 4 = 0 then 'archived' else 'active' end, ${at}, now()
        from ${rows}`,
    sql`insert into api_keys (id, tenant_id, name, token_hash, token_start, token_last4, created_at)
        select ${id('key')}, ${ten}, 'key ' || i, ${id('hash')}, 'tgp_', 'abcd', ${at} from ${rows}`,
    sql`insert into scans (id, tenant_id, url, language, options, status, created_at)
        select ${id('scn')}, ${ten}, 'https://shop.test/' || i, 'en', '{"ai_summary": false, "pagespeed": false}',
               'completed', ${at} from ${rows}`,
    sql`insert into containers (id, tenant_id, name, region, status, config, default_hostname, created_at)
        select ${id('ctr')}, ${ten}, 'web', 'eu-central', 'stopped', ${GTM_CONFIG}, ${id('ctr')} || '.containers.test', ${at}
        from ${rows}`,
    sql`insert into containers (id, tenant_id, name, region, status, config, default_hostname, created_at)
        values (${owner.container}, ${ten}, 'main', 'eu-central', 'stopped', ${GTM_CONFIG}, ${`${owner.container}.test`}, now())`,
    sql`insert into container_request_logs (id, container_id, at, hostname, method, path, status_code, duration_ms)
        select ${id('log')}, ${owner.container}, ${at}, 'www.shop.test', 'GET', '/gtm.js', 200, 5 from ${rows}`,
    sql`insert into outgoing_log (id, container_id, vendor, destination, event_name, request, status, attempts, at)
        select ${id('out')}, ${owner.container}, 'ga4', 'ga4 G-ABC123', 'purchase', '{}', 'delivered', 1, ${at}
        from ${rows}`,
    sql`insert into delayed_requests (id, container_id, method, path, headers, body, delay_minutes, status, due_at,
                                      next_attempt_at, created_at)
        select ${id('dly')}, ${owner.container}, 'GET', '/x', '[]', ''::bytea, 5, 'pending', ${at}, ${at}, ${at}
        from ${rows}`,
    sql`insert into schedule_runs (id, container_id, schedule_name, due_at, status, started_at)
        select ${id('run')}, ${owner.container}, 'refresh ' || i, ${at}, 'succeeded', ${at} from ${rows}`,
    sql`insert into domains (id, tenant_id, container_id, hostname, status, verification_token, created_at)
        select ${id('dom')}, ${ten}, ${owner.container}, ${id('shop')} || '.test', 'active', 'token', ${at} from ${rows}`,
    sql`insert into events (id, tenant_id, type, object_type, object_id, data, created_at)
        select ${id('evt')}, ${ten}, 'container.status_changed', 'container', ${owner.container}, '{}', ${at}
        from ${rows}`,
    sql`insert into users (id, email, name, password_hash, created_at)
        select ${id('usr')}, ${id('user')} || '@shop.test', 'User ' || i, 'x', ${at} from ${rows}`,
    sql`insert into memberships (id, user_id, tenant_id, role, created_at)
        select ${id('mem')}, ${id('usr')}, ${ten}, 'member', ${at} from ${rows}`,
    sql`insert into invitations (id, tenant_id, email, role, token_hash, created_at, expires_at)
        select ${id('inv')}, ${ten}, ${id('guest')} || '@shop.test', 'member', ${id('invhash')}, ${at},
               now() + interval '7 days' from ${rows}`,
    sql`insert into meta_pixels (id, tenant_id, container_id, pixel_id, access_token_sealed, access_token_last4,
                                 created_at)
        select case when i = 1 then ${owner.pixel} else ${id('mpx')} end, ${ten}, ${owner.container}, i::text, 'sealed',
               'abcd', ${at} from ${rows}`,
    sql`insert into meta_event_deliveries (meta_pixel_id, event_id, event_name, status, first_attempt_at,
                                           last_attempt_at)
        select ${owner.pixel}, ${id('evid')}, 'Purchase', 'delivered', ${at}, ${at} from ${rows}`,
    sql`insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds, timeout_ms,
                              expected_status_codes, confirmation_checks, status, created_at)
        select case when i = 1 then ${owner.monitor} else ${id('mon')} end, ${ten}, 'Monitor ' || i, 'url',
               'https://example.test/', 'GET', 60, 5000, '[200]', 2, 'up', ${at} from ${rows}`,
    sql`insert into monitor_checks (id, monitor_id, tenant_id, checked_at, result, status_code, latency_ms)
        select ${id('chk')}, ${owner.monitor}, ${ten}, ${at}, 'up', 200, 20 from ${rows}`,
    sql`insert into incidents (id, tenant_id, monitor_id, status, cause, opened_at, resolved_at)
        select ${id('inc')}, ${ten}, ${owner.monitor}, 'resolved', 'timeout', ${at}, now() from ${rows}`,
    sql`insert into tracking_monitors (id, tenant_id, name, pages, follow_links, interval_seconds, consent_check,
                                       loss_threshold_pct, rules, notification_channel_ids, status,
                                       created_at)
        select case when i = 1 then ${owner.trackingMonitor} else ${id('tmo')} end, ${ten}, 'Pages ' || i,
               '["https://shop.test/"]', 0, 3600, true, 10, '{}', '[]', 'pending', ${at} from ${rows}`,
    sql`insert into tracking_runs (id, monitor_id, tenant_id, trigger, result, due_at, changes, pages)
        select ${id('trn')}, ${owner.trackingMonitor}, ${ten}, 'manual', 'matched', ${at}, '[]', '[]' from ${rows}`,
    sql`insert into tracking_incidents (id, tenant_id, monitor_id, status, severity, opened_run_id, last_run_id, changes,
                                        resolution, opened_at, resolved_at)
        select ${id('tin')}, ${ten}, ${owner.trackingMonitor}, 'resolved', 'critical', 'trn_x', 'trn_x', '[]',
               'run_matched', ${at}, now() from ${rows}`,
    sql`insert into reports (id, tenant_id, kind, format, period_start, period_end, status, created_at)
        select ${id('rpt')}, ${ten}, 'uptime', 'json', now() - interval '30 days', now(), 'ready', ${at}
        from ${rows}`,
    sql`insert into webhooks (id, tenant_id, url, event_types, secret, created_at)
        select case when i = 1 then ${owner.webhook} else ${id('wh')} end, ${ten}, 'https://hooks.test/',
               '["monitor.down"]', 'whsec_x', ${at} from ${rows}`,
    sql`insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, payload, status, created_at)
        select ${id('dlv')}, ${owner.webhook}, ${ten}, 'evt_' || i, 'monitor.down', '{}', 'succeeded', ${at}
        from ${rows}`,
    sql`insert into notification_channels (id, tenant_id, name, type, target_hint, config_sealed, event_types, created_at)
        select case when i = 1 then ${owner.channel} else ${id('nch')} end, ${ten}, 'Channel ' || i, 'slack',
               'https://hooks.test/…abcd', 'sealed', '["incident.opened"]', ${at} from ${rows}`,
    sql`insert into notification_deliveries (id, channel_id, tenant_id, event_id, event_type, message, status, created_at)
        select ${id('ntf')}, ${owner.channel}, ${ten}, 'evt_' || i, 'incident.opened', '{}', 'succeeded', ${at}
        from ${rows}`,
  ];
  for (const statement of statements) await db.execute(statement);
  return owner;
}
