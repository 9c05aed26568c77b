import fs from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationChannels, notificationDeliveries } from '../../../src/db/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { expectOutboundUrlRules } from '../../helpers/outbound-rules.js';

const SLACK_URL = 'https://127.0.0.1:9/services/T0001/B0001/sEcReTtOkEn1234';

describe.each(backends)('notification channels on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  let other: { tenantId: string; token: string };

  beforeAll(async () => {
    // Nothing is delivered: the workers do not run; deliveries stay pending.
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
    tenant = await t.tenantWithKey('business');
    other = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, token = tenant.token) =>
    t.inject({ method, url, token, payload });

  async function channel(body: object, token = tenant.token) {
    const created = await api('POST', '/api/notification-channels/', body, token);
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; target: string; signing_secret: string | null; event_types: string[] };
  }
  const slack = (token = tenant.token, extra: object = {}) =>
    channel({ name: '#alerts', type: 'slack', target: SLACK_URL, ...extra }, token);
  const email = (extra: object = {}) =>
    channel({ name: 'On-call', type: 'email', target: 'OnCall@Example.com', ...extra });

  async function monitor(channelIds: string[] = []) {
    const created = await api('POST', '/api/monitors/', {
      name: 'Shop',
      target: { type: 'url', url: 'https://127.0.0.1:9/shop' },
      notification_channel_ids: channelIds,
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; notification_channel_ids: string[] };
  }

  const deliveriesOf = async (id: string) =>
    (await api('GET', `/api/notification-channels/${id}/deliveries/`)).json().results as Array<{
      event_type: string;
      title: string;
      status: string;
    }>;

  describe('createNotificationChannel · POST /api/notification-channels/', () => {
    it('creates an email channel subscribed to every event by default', async () => {
      const created = await email();
      expect(created).toMatchObject({
        type: 'email',
        target: 'oncall@example.com',
        signing_secret: null,
        event_types: [
          'incident.opened',
          'incident.acknowledged',
          'incident.resolved',
          'certificate.failed',
          'container.failed',
          'container.forwarding_degraded',
          'tracking_incident.opened',
          'tracking_incident.resolved',
        ],
      });
    });

    it('masks a Slack URL in the answer and seals it at rest', async () => {
      const created = await slack();
      expect(created.target).toBe('https://127.0.0.1:9/…1234');
      const [row] = await t.database.db
        .select()
        .from(notificationChannels)
        .where(eq(notificationChannels.id, created.id));
      expect(row.configSealed).not.toContain('sEcReTtOkEn');
      expect(row.configSealed).toMatch(/^v1\./);
    });

    it('shows the signing secret of a webhook channel once', async () => {
      const created = await channel({ name: 'Hook', type: 'webhook', target: 'https://127.0.0.1:9/hook' });
      expect(created.signing_secret).toMatch(/^whsec_/);
      const read = await api('GET', `/api/notification-channels/${created.id}/`);
      expect(read.body).not.toContain(created.signing_secret!);
    });

    it('answers 400 invalid_email for an address that is not one', async () => {
      const response = await api('POST', '/api/notification-channels/', {
        name: 'x',
        type: 'email',
        target: 'oncall@',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_email', param: 'target' });
    });
  });

  describe('migration 0028: channels told about everything stay so', () => {
    const EARLIER_TYPES = [
      'incident.opened',
      'incident.acknowledged',
      'incident.resolved',
      'certificate.failed',
      'container.failed',
    ] as const;
    const migrate = () =>
      t.database.db.execute(sql.raw(fs.readFileSync('src/db/migrations/0028_channels_forwarding_alerts.sql', 'utf8')));
    const typesOf = async (id: string) =>
      (await t.database.db.select().from(notificationChannels).where(eq(notificationChannels.id, id)))[0].eventTypes;

    it('adds container.forwarding_degraded to a channel of every earlier type, once, and to no other', async () => {
      const everything = await email();
      const incidents = await email({ event_types: ['incident.opened'] });
      await t.database.db
        .update(notificationChannels)
        .set({ eventTypes: [...EARLIER_TYPES] })
        .where(eq(notificationChannels.id, everything.id));
      await migrate();
      await migrate();
      expect(await typesOf(everything.id)).toEqual([...EARLIER_TYPES, 'container.forwarding_degraded']);
      expect(await typesOf(incidents.id)).toEqual(['incident.opened']);
    });
  });

  describe('listNotificationChannels · GET /api/notification-channels/', () => {
    it("lists the tenant's channels, never another tenant's, with no secret URL", async () => {
      const mine = await slack();
      const theirs = await slack(other.token);
      const response = await api('GET', '/api/notification-channels/');
      expect(response.statusCode, response.body).toBe(200);
      const ids = response.json().results.map((row: { id: string }) => row.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(theirs.id);
      expect(response.body).not.toContain('sEcReTtOkEn');
    });
  });

  describe('getNotificationChannel · GET /api/notification-channels/:id/', () => {
    it("answers 404 for another tenant's channel", async () => {
      const theirs = await slack(other.token);
      const response = await api('GET', `/api/notification-channels/${theirs.id}/`);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('resource_missing');
    });
  });

  describe('updateNotificationChannel · PATCH /api/notification-channels/:id/', () => {
    it('renames, changes events and re-checks and masks a new target', async () => {
      const created = await slack();
      const response = await api('PATCH', `/api/notification-channels/${created.id}/`, {
        name: '#ops',
        event_types: ['incident.opened'],
        target: 'https://127.0.0.1:9/services/T0001/B0002/oThErSeCrEt9876',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        name: '#ops',
        event_types: ['incident.opened'],
        target: 'https://127.0.0.1:9/…9876',
      });
      const bad = await api('PATCH', `/api/notification-channels/${created.id}/`, { target: 'ftp://example.com/' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'https_required', param: 'target' });
    });
  });

  describe('deleteNotificationChannel · DELETE /api/notification-channels/:id/', () => {
    it('deletes the channel and takes it off the monitors that chose it', async () => {
      const created = await slack();
      const chosen = await monitor([created.id]);
      expect(chosen.notification_channel_ids).toEqual([created.id]);
      const deleted = await api('DELETE', `/api/notification-channels/${created.id}/`);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect((await api('GET', `/api/notification-channels/${created.id}/`)).statusCode).toBe(404);
      const read = (await api('GET', `/api/monitors/${chosen.id}/`)).json();
      expect(read.notification_channel_ids).toEqual([]);
      expect((await api('DELETE', `/api/notification-channels/${created.id}/`)).statusCode).toBe(404);
    });
  });

  describe('testNotificationChannel · POST /api/notification-channels/:id/test/', () => {
    it('queues a test delivery, listed with the channel deliveries', async () => {
      const created = await email();
      const response = await api('POST', `/api/notification-channels/${created.id}/test/`);
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({ channel_id: created.id, event_type: 'test', status: 'pending' });
      expect(await deliveriesOf(created.id)).toEqual([
        expect.objectContaining({ id: response.json().id, title: 'Test notification for On-call' }),
      ]);
    });
  });

  describe('listNotificationDeliveries · GET /api/notification-channels/:id/deliveries/', () => {
    it("answers 404 for another tenant's channel", async () => {
      const theirs = await slack(other.token);
      const response = await api('GET', `/api/notification-channels/${theirs.id}/deliveries/`);
      expect(response.statusCode).toBe(404);
    });

    it("sends a monitor's incidents only to the channels it chose, that subscribe to the event", async () => {
      const chosen = await slack();
      const notChosen = await slack();
      const chosenButUnsubscribed = await slack(tenant.token, { event_types: ['incident.resolved'] });
      const mon = await monitor([chosen.id, chosenButUnsubscribed.id]);
      await t.app.services.events.record(
        tenant.tenantId,
        'incident.opened',
        { type: 'incident', id: 'inc_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        {
          monitor_id: mon.id,
          name: 'Shop',
          url: 'https://127.0.0.1:9/shop',
          incident_id: 'inc_01jdv3k2m8q4r7s9t0v1w2x3y4',
          cause: 'HTTP 503',
        },
      );
      expect(await deliveriesOf(chosen.id)).toEqual([
        expect.objectContaining({ event_type: 'incident.opened', title: 'Incident opened: Shop', status: 'pending' }),
      ]);
      expect(await deliveriesOf(notChosen.id)).toEqual([]);
      expect(await deliveriesOf(chosenButUnsubscribed.id)).toEqual([]);
    });

    it('sends certificate and container failures to every subscribed channel of the tenant', async () => {
      const everything = await slack();
      const incidentsOnly = await slack(tenant.token, { event_types: ['incident.opened'] });
      const theirs = await slack(other.token);
      await t.app.services.events.record(
        tenant.tenantId,
        'domain.certificate_failed',
        { type: 'domain', id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        { hostname: 'data.shop.example', error: 'the ACME challenge failed', still_served: false },
      );
      await t.app.services.events.record(
        tenant.tenantId,
        'container.status_changed',
        { type: 'container', id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        { from: 'starting', to: 'failed', reason: 'upstream refused' },
      );
      // A container that merely stopped is not an alert.
      await t.app.services.events.record(
        tenant.tenantId,
        'container.status_changed',
        { type: 'container', id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        { from: 'stopping', to: 'stopped' },
      );
      expect((await deliveriesOf(everything.id)).map((row) => row.event_type).sort()).toEqual([
        'certificate.failed',
        'container.failed',
      ]);
      expect(await deliveriesOf(incidentsOnly.id)).toEqual([]);
      const [theirRows] = await Promise.all([
        t.database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.channelId, theirs.id)),
      ]);
      expect(theirRows).toEqual([]);
    });
  });

  describe('createMonitor · POST /api/monitors/', () => {
    it("answers 400 notification_channel_missing for another tenant's channel", async () => {
      const theirs = await slack(other.token);
      const response = await api('POST', '/api/monitors/', {
        name: 'Shop',
        target: { type: 'url', url: 'https://127.0.0.1:9/shop' },
        notification_channel_ids: [theirs.id],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'notification_channel_missing',
        param: 'notification_channel_ids',
      });
    });
  });

  describe('updateMonitor · PATCH /api/monitors/:id/', () => {
    it('changes the channels a monitor chose and lists them', async () => {
      const first = await email();
      const second = await slack();
      const mon = await monitor([first.id]);
      const response = await api('PATCH', `/api/monitors/${mon.id}/`, { notification_channel_ids: [second.id] });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().notification_channel_ids).toEqual([second.id]);
      const listed = (await api('GET', '/api/monitors/'))
        .json()
        .results.find((row: { id: string }) => row.id === mon.id);
      expect(listed.notification_channel_ids).toEqual([second.id]);
    });
  });
});

describe('notification channel URLs in production settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
  });
  afterAll(() => t?.close());

  describe('createNotificationChannel · POST /api/notification-channels/', () => {
    it('refuses plain http and private addresses for Slack and webhook targets', async () => {
      for (const type of ['slack', 'webhook'])
        await expectOutboundUrlRules(
          t,
          '/api/notification-channels/',
          (url) => ({ name: 'x', type, target: url }),
          'target',
        );
    });
  });
});
