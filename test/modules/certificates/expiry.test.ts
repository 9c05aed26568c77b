import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG } from '../../helpers/gateway-app.js';

const DAY = 86_400_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe.each(backends)('certificates near expiry on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
  }, 60_000);
  afterAll(() => t?.close());

  const api = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const response = await t.inject({ method, url, token, payload });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  };
  const run = (statement: ReturnType<typeof sql>) => t.database.db.execute(statement);

  /** An active custom domain whose certificate reaches its expiry warning `warningInMs` from now. */
  async function domainWithCertificate(token: string, hostname: string, warningInMs: number) {
    const container = await api(token, 'POST', '/api/containers/', {
      name: hostname,
      region: 'eu-central',
      config: CONFIG,
      upstream_url: 'http://127.0.0.1:9/',
    });
    const domain = await api(token, 'POST', '/api/domains/', { hostname, container_id: container.id });
    await run(sql`update domains set status = 'active' where id = ${domain.id}`);
    await run(sql`insert into domain_certificates
      (domain_id, hostname, status, not_before, not_after, certificate_pem, last_error, expiry_warning_at)
      values (${domain.id}, ${hostname}, 'renewing', ${at(-80 * DAY)}::timestamptz, ${at(10 * DAY)}::timestamptz,
        'pem', 'CAA forbids the CA.', ${at(warningInMs)}::timestamptz)`);
    return domain.id as string;
  }

  it('alerts a certificate past its warning once, to the channels and webhooks, and lists it on the overview', async () => {
    const { token } = await t.tenantWithKey('business');
    const channel = await api(token, 'POST', '/api/notification-channels/', {
      name: 'On-call',
      type: 'email',
      target: 'oncall@example.com',
    });
    const expiring = await domainWithCertificate(token, `expiring.${backend}.example`, -60_000);
    await domainWithCertificate(token, `later.${backend}.example`, 5 * DAY);

    await t.app.services.certificates.alertExpiring();
    await t.app.services.certificates.alertExpiring(); // a second run (or instance) finds nothing new

    const events = await api(token, 'GET', '/api/events/?type=domain.certificate_expiring');
    expect(events.results).toEqual([
      expect.objectContaining({
        object_id: expiring,
        data: expect.objectContaining({
          hostname: `expiring.${backend}.example`,
          last_error: 'CAA forbids the CA.',
          not_after: expect.any(String),
        }),
      }),
    ]);
    const deliveries = await api(token, 'GET', `/api/notification-channels/${channel.id}/deliveries/`);
    expect(deliveries.results).toEqual([
      expect.objectContaining({
        event_type: 'certificate.failed',
        title: `Certificate expiring: expiring.${backend}.example`,
      }),
    ]);
    const overview = await api(token, 'GET', '/api/overview/');
    const certificateItems = overview.containers.needs_attention.filter((item: { reason: string }) =>
      item.reason.startsWith('certificate'),
    );
    expect(certificateItems).toEqual([
      expect.objectContaining({
        reason: 'certificate_expiring',
        domain_id: expiring,
        detail: expect.stringMatching(/^Expires \d{4}-.*; the last renewal failed: CAA forbids the CA\.$/),
      }),
    ]);
  });

  it('alerts a renewed certificate again only once it nears its own expiry', async () => {
    const { token } = await t.tenantWithKey('business');
    const domainId = await domainWithCertificate(token, `renewed.${backend}.example`, -60_000);
    await t.app.services.certificates.alertExpiring();
    // What saving a newly issued certificate does: a new warning time, not alerted yet.
    await run(sql`update domain_certificates set expiry_warning_at = ${at(50 * DAY)}::timestamptz,
      expiry_alerted_at = null where domain_id = ${domainId}`);
    await t.app.services.certificates.alertExpiring();
    const events = await api(token, 'GET', '/api/events/?type=domain.certificate_expiring');
    expect(events.results).toHaveLength(1);
    const overview = await api(token, 'GET', '/api/overview/');
    expect(overview.containers.needs_attention).toEqual([]);
  });
});
