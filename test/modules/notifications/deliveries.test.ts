import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONITOR_CHECKS } from '../../../src/modules/monitors/checks.js';
import { NOTIFICATION_DEAD_LETTERS, NOTIFICATION_DELIVERIES } from '../../../src/modules/notifications/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startHttpsTarget, type ReceivedRequest } from '../../helpers/https-target.js';
import { startSmtpServer } from '../../helpers/smtp.js';

const PUBLIC_BASE_URL = 'https://tagport.example';

describe('notification deliveries to a real SMTP server and a Slack-format receiver', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  const state = { shop: 200, slackFailures: 0 };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    target = await startHttpsTarget((request) => {
      if (request.path === '/shop') return { status: state.shop, body: 'ok' };
      if (request.path === '/hook') return { status: 204 };
      if (request.path.startsWith('/services/')) return state.slackFailures-- > 0 ? { status: 500 } : { status: 200 };
      return { status: 404 };
    });
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      outboundCaCertificates: [target.ca],
      runWorkers: false,
      publicBaseUrl: PUBLIC_BASE_URL,
      mail: { smtpUrl: smtp.url, from: 'Tagport <alerts@tagport.test>' },
      webhooks: { retryBaseMs: 1, maxAttempts: 3, timeoutMs: 2000 },
    });
    tenant = await t.tenantWithKey('business');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await smtp?.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });
  const deliver = () => t.app.services.jobs.runQueued(NOTIFICATION_DELIVERIES);
  const slackRequests = (): ReceivedRequest[] => target.received.filter((r) => r.path.startsWith('/services/'));

  async function channel(body: object): Promise<string> {
    const created = await api('POST', '/api/notification-channels/', body);
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id;
  }

  async function checkNow(monitorId: string) {
    await t.database.db.execute(sql`update monitors set next_check_at = now() where id = ${monitorId}`);
    await t.app.services.monitorChecks.dispatch();
    await t.app.services.jobs.runQueued(MONITOR_CHECKS);
  }

  describe('listNotificationDeliveries · GET /api/notification-channels/:id/deliveries/', () => {
    it("emails and posts to Slack when a monitor's incident opens, is acknowledged and resolves", async () => {
      const email = await channel({ name: 'On-call', type: 'email', target: 'oncall@shop.example' });
      const slack = await channel({ name: '#alerts', type: 'slack', target: target.url('/services/T1/B1/secret') });
      const monitor = await api('POST', '/api/monitors/', {
        name: 'Shop home',
        target: { type: 'url', url: target.url('/shop') },
        confirmation_checks: 1,
        notification_channel_ids: [email, slack],
      });
      expect(monitor.statusCode, monitor.body).toBe(201);
      const monitorId = monitor.json().id as string;

      state.shop = 503;
      await checkNow(monitorId);
      const [incident] = (await api('GET', `/api/incidents/?monitor_id=${monitorId}`)).json().results;
      expect(incident.status).toBe('open');
      await deliver();

      const mail = await smtp.next();
      const link = `${PUBLIC_BASE_URL}/dashboard/monitors/${monitorId}?incident=${incident.id}`;
      expect(mail.to).toEqual(['oncall@shop.example']);
      expect(mail.subject).toBe('[Tagport] Incident opened: Shop home');
      expect(mail.text).toContain('Cause: unexpected status 503');
      expect(mail.text).toContain(link);
      expect(mail.html).toContain(`href="${link}"`);
      expect(mail.html).toContain('Incident opened: Shop home');

      const [posted] = slackRequests();
      expect(posted.method).toBe('POST');
      expect(posted.headers['content-type']).toBe('application/json');
      const payload = JSON.parse(posted.body);
      expect(payload.text).toContain('*Incident opened: Shop home*');
      expect(payload.text).toContain(`<${link}|Open the incident>`);
      expect(payload.blocks[0]).toEqual({
        type: 'section',
        text: { type: 'mrkdwn', text: '*Incident opened: Shop home*' },
      });

      expect((await api('POST', `/api/incidents/${incident.id}/acknowledge/`)).statusCode).toBe(200);
      await deliver();
      expect((await smtp.next()).subject).toBe('[Tagport] Incident acknowledged: Shop home');

      state.shop = 200;
      await checkNow(monitorId);
      await deliver();
      expect((await smtp.next()).subject).toBe('[Tagport] Incident resolved: Shop home');
      expect(slackRequests().map((r) => JSON.parse(r.body).blocks[0].text.text)).toEqual([
        '*Incident opened: Shop home*',
        '*Incident acknowledged: Shop home*',
        '*Incident resolved: Shop home*',
      ]);

      const deliveries = (await api('GET', `/api/notification-channels/${email}/deliveries/`)).json();
      expect(deliveries.results.map((row: { event_type: string }) => row.event_type)).toEqual([
        'incident.resolved',
        'incident.acknowledged',
        'incident.opened',
      ]);
      expect(deliveries.results[0]).toMatchObject({ status: 'succeeded', attempts: 1, last_error: null });
    });

    it('retries a Slack delivery whose receiver fails first, then gives up after the last attempt', async () => {
      const slack = await channel({ name: '#flaky', type: 'slack', target: target.url('/services/T1/B2/flaky') });
      state.slackFailures = 2;
      const test = await api('POST', `/api/notification-channels/${slack}/test/`);
      expect(test.statusCode, test.body).toBe(202);
      for (let round = 0; round < 5; round++) await deliver();
      const [delivered] = (await api('GET', `/api/notification-channels/${slack}/deliveries/`)).json().results;
      expect(delivered).toMatchObject({ id: test.json().id, status: 'succeeded', attempts: 3, last_status_code: 200 });

      state.slackFailures = 10;
      await api('POST', `/api/notification-channels/${slack}/test/`);
      for (let round = 0; round < 5; round++) await deliver();
      const [failed] = (await api('GET', `/api/notification-channels/${slack}/deliveries/`)).json().results;
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 3,
        last_status_code: 500,
        last_error: 'endpoint answered 500',
        next_attempt_at: null,
      });
      expect(await t.app.services.jobs.unfinished([NOTIFICATION_DEAD_LETTERS])).toBe(1);
      state.slackFailures = 0;
    });
  });

  describe('testNotificationChannel · POST /api/notification-channels/:id/test/', () => {
    it('sends a test email with a subject, a text and an HTML part', async () => {
      const email = await channel({ name: 'Ops', type: 'email', target: 'ops@shop.example' });
      expect((await api('POST', `/api/notification-channels/${email}/test/`)).statusCode).toBe(202);
      await deliver();
      const mail = await smtp.next();
      expect(mail.subject).toBe('[Tagport] Test notification for Ops');
      expect(mail.text).toContain(`${PUBLIC_BASE_URL}/dashboard/notifications`);
      expect(mail.html).toContain(`href="${PUBLIC_BASE_URL}/dashboard/notifications"`);
    });

    it('posts a signed JSON event to a webhook channel', async () => {
      const created = await api('POST', '/api/notification-channels/', {
        name: 'Hook',
        type: 'webhook',
        target: target.url('/hook'),
      });
      const { id, signing_secret: secret } = created.json();
      const test = await api('POST', `/api/notification-channels/${id}/test/`);
      await deliver();
      const request = target.received.find((r) => r.path === '/hook')!;
      const [t0, v1] = String(request.headers['tagport-signature'])
        .split(',')
        .map((part) => part.slice(part.indexOf('=') + 1));
      expect(v1).toBe(createHmac('sha256', secret).update(`${t0}.${request.body}`).digest('hex'));
      expect(JSON.parse(request.body)).toMatchObject({
        id: test.json().event_id,
        type: 'test',
        tenant_id: tenant.tenantId,
        data: { title: 'Test notification for Hook', url: `${PUBLIC_BASE_URL}/dashboard/notifications` },
      });
    });
  });
});
