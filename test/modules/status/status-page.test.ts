import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { waitFor } from '../../helpers/processes.js';
import { startSmtpServer } from '../../helpers/smtp.js';

const CHECK_MS = 100;
const FAILURES_TO_OPEN = 2;
/** The configured window: an incident is due after FAILURES_TO_OPEN checks; the deadline leaves room for job polling. */
const ANNOUNCE_DEADLINE_MS = 15_000;

/** A local webhook receiver that records JSON bodies. */
async function startReceiver() {
  const bodies: Array<Record<string, unknown>> = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(body));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise((r) => server.close(r)) };
}

describe.each(backends)('status page on %s', (backend) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let operator: { tenantId: string; token: string };
  let stranger: { tenantId: string; token: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    receiver = await startReceiver();
    t = await startTestApp(backend, {
      statusCheckMs: CHECK_MS,
      statusFailuresToOpen: FAILURES_TO_OPEN,
      allowPrivateNetworks: true,
      publicBaseUrl: 'http://status.test',
      mail: { smtpUrl: smtp.url, from: 'Tagport <status@tagport.test>' },
      // Every request here is anonymous from one address; the per-address limit is tested elsewhere.
      anonymousRateLimitPerMinute: 10_000,
    });
    operator = await t.tenantWithKey('pro');
    stranger = await t.tenantWithKey('pro');
    await t.app.services.statusIncidents.grantOperator(operator.tenantId);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await receiver?.close();
  });

  const status = async () => (await t.inject({ method: 'GET', url: '/api/status.json' })).json();

  describe('subscribeToStatus · POST /api/status/subscriptions/', () => {
    it('subscribes a webhook at once, and refuses a body with neither or both targets', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/',
        payload: { webhook_url: receiver.url },
      });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({
        type: 'webhook',
        status: 'active',
        unsubscribe_token: expect.any(String),
      });
      const again = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/',
        payload: { webhook_url: receiver.url },
      });
      expect(again.json().unsubscribe_token).toBeNull();
      for (const payload of [{}, { email: 'a@example.com', webhook_url: receiver.url }]) {
        const refused = await t.inject({ method: 'POST', url: '/api/status/subscriptions/', payload });
        expect(refused.statusCode).toBe(400);
        expect(refused.json().error.code).toBe('subscription_target_required');
      }
      const ftp = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/',
        payload: { webhook_url: 'ftp://x' },
      });
      expect(ftp.statusCode).toBe(400);
      expect(ftp.json().error.code).toBe('https_required');
    });
  });

  describe('confirmStatusSubscription · POST /api/status/subscriptions/confirm/', () => {
    it('emails a confirmation link (double opt-in); the address hears nothing until it is followed', async () => {
      const email = `reader-${backend}@example.com`;
      const response = await t.inject({ method: 'POST', url: '/api/status/subscriptions/', payload: { email } });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({ type: 'email', status: 'pending_confirmation', unsubscribe_token: null });
      const mail = await smtp.next();
      expect(mail.to).toEqual([email]);
      expect(mail.subject).toBe('Confirm your subscription to Tagport status');
      const link = /http:\/\/status\.test\/status\/confirm\?token=([\w-]+)/.exec(mail.text);
      expect(link, mail.text).not.toBeNull();
      expect(mail.html).toContain(link![0]);
      expect(mail.text).toMatch(/\/status\/unsubscribe\?token=/);

      // The link opens a page with a button (a mail scanner following it confirms nothing).
      const page = await t.inject({ method: 'GET', url: `/status/confirm?token=${link![1]}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Confirm the subscription');
      const bad = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token: 'nope' },
      });
      expect(bad.statusCode).toBe(404);
      expect(bad.json().error.code).toBe('invalid_subscription_token');
      const confirmed = await t.inject({
        method: 'POST',
        url: '/status/confirm',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `token=${link![1]}`,
      });
      expect(confirmed.statusCode).toBe(200);
      expect(confirmed.body).toContain('Subscription confirmed');
      const twice = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token: link![1] },
      });
      expect(twice.statusCode).toBe(404);
    });

    it('confirms through the API with the token of the link', async () => {
      const email = `api-reader-${backend}@example.com`;
      const response = await t.inject({ method: 'POST', url: '/api/status/subscriptions/', payload: { email } });
      expect(response.statusCode, response.body).toBe(202);
      const mail = await smtp.next();
      const token = /\/status\/confirm\?token=([\w-]+)/.exec(mail.text)![1];
      const confirmed = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token },
      });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
      expect(confirmed.json()).toMatchObject({ type: 'email', status: 'active' });
      // Unsubscribed again, so the notices of the tests below reach only the addresses they expect.
      const unsubscribeToken = /\/status\/unsubscribe\?token=([\w-]+)/.exec(mail.text)![1];
      const ended = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/unsubscribe/',
        payload: { token: unsubscribeToken },
      });
      expect(ended.statusCode, ended.body).toBe(200);
    });
  });

  describe('createStatusIncident · POST /api/status/incidents/', () => {
    it('is for platform operators only', async () => {
      const payload = { component: 'Gateway', title: 'Slow', status: 'investigating', message: 'Looking.' };
      const refused = await t.inject({ method: 'POST', url: '/api/status/incidents/', token: stranger.token, payload });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('not_platform_operator');
      const anonymous = await t.inject({ method: 'POST', url: '/api/status/incidents/', payload });
      expect(anonymous.statusCode).toBe(401);
    });

    it('posts an incident with timestamped updates through to resolved; subscribers get each by email and webhook', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/status/incidents/',
        token: operator.token,
        payload: { component: 'Gateway', title: 'Elevated errors', status: 'investigating', message: 'We see 5xx.' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const incident = created.json();
      expect(incident).toMatchObject({ status: 'open', stage: 'investigating', source: 'operator' });
      const mail = await smtp.next();
      expect(mail.subject).toBe('[Tagport status] Incident investigating: Elevated errors');
      expect(mail.text).toContain('We see 5xx.');
      expect(mail.text).toMatch(/Unsubscribe: http:\/\/status\.test\/status\/unsubscribe\?token=/);

      for (const stage of ['identified', 'monitoring', 'resolved']) {
        const update = await t.inject({
          method: 'POST',
          url: `/api/status/incidents/${incident.id}/updates/`,
          token: operator.token,
          payload: { status: stage, message: `Now ${stage}.` },
        });
        expect(update.statusCode, update.body).toBe(201);
        expect(update.json().stage).toBe(stage);
      }
      const resolved = (await status()).recent_incidents.find((item: { id: string }) => item.id === incident.id);
      expect(resolved.updates.map((update: { status: string }) => update.status)).toEqual([
        'resolved',
        'monitoring',
        'identified',
        'investigating',
      ]);
      expect(resolved.resolved_at).not.toBeNull();
      await waitFor(
        async () => receiver.bodies.filter((body) => body.id === incident.id).length === 4,
        10_000,
        'four webhook notices',
      );
      expect(receiver.bodies.find((body) => body.status === 'resolved')).toMatchObject({
        type: 'status.incident',
        title: 'Elevated errors',
        unsubscribe_url: expect.stringContaining('/status/unsubscribe?token='),
      });
      for (let taken = 0; taken < 3; taken++) await smtp.next();
    });
  });

  describe('addStatusIncidentUpdate · POST /api/status/incidents/{id}/updates/', () => {
    it('answers 404 for an unknown incident and 409 incident_resolved for a resolved one', async () => {
      const missing = await t.inject({
        method: 'POST',
        url: '/api/status/incidents/pin_00000000000000000000000000/updates/',
        token: operator.token,
        payload: { status: 'identified', message: 'x' },
      });
      expect(missing.statusCode, missing.body).toBe(404);
      const done = (await status()).recent_incidents.find((item: { source: string }) => item.source === 'operator');
      const conflict = await t.inject({
        method: 'POST',
        url: `/api/status/incidents/${done.id}/updates/`,
        token: operator.token,
        payload: { status: 'identified', message: 'x' },
      });
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json().error.code).toBe('incident_resolved');
    });
  });

  describe('createMaintenanceWindow · POST /api/status/maintenance/', () => {
    it('shows a window ahead, during and in history, and refuses one that ends before it starts', async () => {
      const hour = 3_600_000;
      const at = (offset: number) => new Date(Date.now() + offset).toISOString();
      const post = (title: string, starts: number, ends: number) =>
        t.inject({
          method: 'POST',
          url: '/api/status/maintenance/',
          token: operator.token,
          payload: {
            title,
            message: `${title} work.`,
            components: ['Database'],
            starts_at: at(starts),
            ends_at: at(ends),
          },
        });
      expect((await post('Upgrade', hour, 2 * hour)).json().state).toBe('scheduled');
      expect((await post('Failover', -hour, hour)).json().state).toBe('in_progress');
      expect((await post('Cleanup', -3 * hour, -2 * hour)).json().state).toBe('completed');
      const invalid = await post('Backwards', 2 * hour, hour);
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().error.code).toBe('invalid_maintenance_window');
      const page = (await t.inject({ method: 'GET', url: '/status' })).body;
      expect(page).toContain('Scheduled maintenance');
      expect(page).toContain('Maintenance in progress');
      expect(page).toContain('Past maintenance');
      for (let taken = 0; taken < 3; taken++) expect((await smtp.next()).subject).toMatch(/Maintenance scheduled/);
    });
  });

  describe('cancelMaintenanceWindow · DELETE /api/status/maintenance/{id}/', () => {
    it('removes the window from the page; 404 afterwards', async () => {
      const window = (await status()).maintenance.find((item: { title: string }) => item.title === 'Upgrade');
      const url = `/api/status/maintenance/${window.id}/`;
      const cancelled = await t.inject({ method: 'DELETE', url, token: operator.token });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect((await status()).maintenance.map((item: { id: string }) => item.id)).not.toContain(window.id);
      expect((await t.inject({ method: 'DELETE', url, token: operator.token })).statusCode).toBe(404);
      expect((await smtp.next()).subject).toMatch(/Maintenance cancelled: Upgrade/);
    });
  });

  describe('unsubscribeFromStatus · POST /api/status/subscriptions/unsubscribe/', () => {
    it('ends a subscription with its token, once', async () => {
      const token = (receiver.bodies[0].unsubscribe_url as string).split('token=')[1];
      const done = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/unsubscribe/',
        payload: { token },
      });
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json()).toMatchObject({ type: 'webhook', status: 'unsubscribed' });
      const again = await t.inject({
        method: 'POST',
        url: '/api/status/subscriptions/unsubscribe/',
        payload: { token },
      });
      expect(again.json().error.code).toBe('invalid_subscription_token');
    });
  });

  describe('getPlatformStatus · GET /api/status.json', () => {
    it('announces a component failing its checks as an incident on the page and in both feeds within the window', async () => {
      t.app.services.status.register('Gateway', async () => ({ status: 'outage', detail: 'Test gateway down.' }));
      await waitFor(
        async () => {
          const [page, atom, rss] = await Promise.all(
            ['/status', '/status/feed.atom', '/status/feed.rss'].map((url) => t.inject({ method: 'GET', url })),
          );
          return [page, atom, rss].every((response) => response.body.includes('Gateway: Test gateway down.'));
        },
        ANNOUNCE_DEADLINE_MS,
        'the automatic incident on the page and in the feeds',
      );
      const atom = (await t.inject({ method: 'GET', url: '/status/feed.atom' })).body;
      expect(atom).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
      expect(atom).toContain('Investigating: Gateway: Test gateway down.');
      const rss = await t.inject({ method: 'GET', url: '/status/feed.rss' });
      expect(rss.headers['content-type']).toContain('application/rss+xml');
      expect(rss.body).toContain('<rss version="2.0">');
    });

    it('counts the checks per day for the 90-day bars, with each day labelled in text', async () => {
      const document = await status();
      const gateway = document.components.find((component: { name: string }) => component.name === 'Gateway');
      expect(gateway.days).toHaveLength(90);
      const today = gateway.days.at(-1);
      expect(today.date).toBe(new Date().toISOString().slice(0, 10));
      expect(today.failures).toBeGreaterThan(0);
      expect(today.uptime_percent).toBeLessThan(100);
      expect(gateway.days[0]).toMatchObject({ checks: 0, uptime_percent: null });
      const page = (await t.inject({ method: 'GET', url: '/status' })).body;
      expect(page).toMatch(
        /<li class="day day-(down|partial)" tabindex="0"><span class="tip">[^<]+: [\d.]+% uptime, \d+ of \d+ checks failed<\/span><\/li>/,
      );
      expect(page).toContain('no data');
      // The overall figure covers the one day that has checks, and says so, not "over the last 90 days".
      expect(page).toMatch(/<span>[\d.]+% uptime over 1 day<\/span>/);
      expect(page).not.toMatch(/% uptime over the last 90 days/);
    });
  });
});

describe('status page while the database is down', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { statusCheckMs: CHECK_MS, runWorkers: true });
    const operator = await t.tenantWithKey('pro');
    await t.app.services.statusIncidents.grantOperator(operator.tenantId);
    await t.inject({
      method: 'POST',
      url: '/api/status/incidents/',
      token: operator.token,
      payload: { component: 'API', title: 'Known before the outage', status: 'identified', message: 'Cause found.' },
    });
    expect((await t.inject({ method: 'GET', url: '/status' })).body).toContain('Known before the outage');
    await t.database.close();
  });
  afterAll(() => t?.close());

  it('renders the last good snapshot with a banner saying the data may be stale', async () => {
    const document = (await t.inject({ method: 'GET', url: '/api/status.json' })).json();
    expect(document.stale).toBe(true);
    expect(document.data_as_of).not.toBeNull();
    expect(document.open_incidents.map((incident: { title: string }) => incident.title)).toContain(
      'Known before the outage',
    );
    const page = await t.inject({ method: 'GET', url: '/status' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Data may be stale.');
    expect(page.body).toContain('Known before the outage');
    expect(page.body).toContain('The database is not answering.');
    const feed = await t.inject({ method: 'GET', url: '/status/feed.atom' });
    expect(feed.statusCode).toBe(200);
    expect(feed.body).toContain('Known before the outage');
  });
});
