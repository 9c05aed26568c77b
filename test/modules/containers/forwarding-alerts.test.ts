import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForwardingAlerts } from '../../../src/modules/containers/forwarding-alerts.js';
import { ContainerTraffic } from '../../../src/modules/containers/traffic.js';
import type { TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../../helpers/google-fixture.js';

describe.each(backends)('forwarding alerts (container.forwarding_degraded) on %s', (backend) => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let tenant: { tenantId: string; token: string };
  let other: { tenantId: string; token: string };
  let alerts: ForwardingAlerts;

  beforeAll(async () => {
    google = await startGoogleFixture();
    // The alert check is called here rather than waited for from the job engine.
    ({ t, gatewayUrl } = await startAppWithGateway(backend, { runtime: testRuntime(google.origin) }));
    tenant = await t.tenantWithKey('business');
    other = await t.tenantWithKey('business');
    alerts = new ForwardingAlerts({ database: t.database, events: t.app.services.events });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await google?.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object, token = tenant.token) =>
    t.inject({ method, url, token, payload });
  const alertsOf = async (containerId: string, token = tenant.token) =>
    (
      await api('GET', `/api/events/?object_id=${containerId}&type=container.forwarding_degraded`, undefined, token)
    ).json().results as Array<{ data: Record<string, unknown> }>;

  it('alerts the tenant once when GA4 refuses its forwards, through events and notification channels', async () => {
    const channel = await api('POST', '/api/notification-channels/', {
      name: 'On-call',
      type: 'email',
      target: 'oncall@example.com',
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const { id, default_hostname: host } = await createBuiltinContainer(t, tenant.token, {
      settings: { ga4_measurement_ids: ['G-ALERTS01'] },
    });
    google.state.collectStatuses.push(400, 400);
    for (const name of ['refused_one', 'refused_two']) {
      const hit = await request(`${gatewayUrl}/g/collect?v=2&tid=G-ALERTS01&cid=1.2&en=${name}`, { headers: { host } });
      expect(hit.statusCode).toBe(204);
      await hit.body.dump();
    }
    await t.app.services.runtime.idle();
    await t.app.services.runtime.flush();

    // The job engine runs the same check once a minute: whichever runs first sends the one alert.
    await alerts.checkDue();
    expect(await alerts.checkDue(), 'sent once').toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await alertsOf(id)).map((event) => event.data)).toEqual([
      expect.objectContaining({ day: today, forwards_failed: 2, hits_refused: 0, new_losses: 2 }),
    ]);
    const deliveries = await api('GET', `/api/notification-channels/${channel.json().id}/deliveries/`);
    expect(deliveries.json().results).toEqual([
      expect.objectContaining({ event_type: 'container.forwarding_degraded', title: `Forwards lost: ${id}` }),
    ]);
    expect(await alertsOf(id, other.token)).toEqual([]);
  });

  it('alerts again only for new losses, and at most once an hour', async () => {
    const { id } = await createBuiltinContainer(t, tenant.token, { settings: { ga4_measurement_ids: ['G-ALERTS02'] } });
    const traffic = new ContainerTraffic({ database: t.database });
    const day = new Date().toISOString().slice(0, 10);
    const loss = { containerId: id, day, hitsReceived: 0, ga4Forwarded: 0, metaForwarded: 0, botsDropped: 0 };
    await traffic.recordRuntime([{ ...loss, forwardsFailed: 0, hitsRefused: 5, cookiesRestored: 0 }]);
    await alerts.checkDue();
    expect(await alertsOf(id)).toHaveLength(1);

    await traffic.recordRuntime([{ ...loss, forwardsFailed: 3, hitsRefused: 0, cookiesRestored: 0 }]);
    expect(await alerts.checkDue(), 'within the hour').toBe(0);

    await t.database.db.execute(
      sql`UPDATE container_forwarding_alerts SET alerted_at = now() - interval '2 hours' WHERE container_id = ${id}`,
    );
    await alerts.checkDue();
    expect(await alerts.checkDue(), 'nothing new').toBe(0);
    expect((await alertsOf(id)).map((event) => event.data.new_losses)).toEqual([3, 5]);
  });
});
