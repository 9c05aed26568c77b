import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/database.js';
import { CONFIG, type GatewayApp, startGatewayApp } from '../../helpers/gateway-app.js';

describe.each(backends)('custom domains on %s', (backend) => {
  let g: GatewayApp;
  let container: { id: string; default_hostname: string };
  let counter = 0;

  beforeAll(async () => {
    g = await startGatewayApp(backend);
    container = (
      await g.api('POST', '/api/containers/', {
        name: 'Domain test',
        region: 'eu-west',
        config: CONFIG,
        upstream_url: g.upstream.url,
      })
    ).json();
    await g.settle();
  }, 60_000);
  afterAll(() => g?.close());

  interface Domain {
    id: string;
    hostname: string;
    status: string;
    dns_records: Array<{ type: string; name: string; value: string; purpose: string }>;
  }

  async function addDomain(hostname = `daten${++counter}.shop.example`): Promise<Domain> {
    const created = await g.api('POST', '/api/domains/', { hostname, container_id: container.id });
    expect(created.statusCode, created.body).toBe(201);
    return created.json();
  }

  /** Publishes the CNAME and the TXT proof the domain asks for. */
  function publishRecords(domain: Domain) {
    const txt = domain.dns_records.find((record) => record.type === 'TXT')!;
    g.dns.records.set(domain.hostname, [{ type: 'CNAME', value: container.default_hostname }]);
    g.dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
  }

  const verify = async (domain: Domain) => (await g.api('POST', `/api/domains/${domain.id}/verify/`)).json();

  describe('createDomain · POST /api/domains/', () => {
    it('stores the hostname as lower-case punycode, pending verification, with the records to publish', async () => {
      const created = await g.api('POST', '/api/domains/', {
        hostname: 'Daten.Müller-Shop.Example.',
        container_id: container.id,
      });
      expect(created.statusCode, created.body).toBe(201);
      const domain = created.json();
      expect(domain.hostname).toBe('daten.xn--mller-shop-9db.example');
      expect(domain.status).toBe('pending_verification');
      expect(domain.dns_records).toContainEqual({
        type: 'CNAME',
        name: domain.hostname,
        value: container.default_hostname,
        purpose: 'routing',
      });
      expect(
        domain.dns_records.some(
          (record: { type: string; value: string }) => record.type === 'A' && record.value === '203.0.113.10',
        ),
      ).toBe(true);
    });

    it('refuses the same hostname again, spelled in punycode and upper case, with 409 hostname_taken', async () => {
      await addDomain('Daten.Bäckerei.Example.');
      const duplicate = await g.api('POST', '/api/domains/', {
        hostname: 'DATEN.xn--bckerei-5wa.example',
        container_id: container.id,
      });
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json().error.code).toBe('hostname_taken');
    });

    it.each([
      ['not a hostname', 'param'],
      ['localhost', 'single label'],
      ['x.containers.tagport.test', 'reserved'],
      ['10.0.0.1', 'an ip'],
    ])('refuses the hostname %s', async (hostname) => {
      const response = await g.api('POST', '/api/domains/', { hostname, container_id: container.id });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.param).toBe('hostname');
    });
  });

  describe('verifyDomain · POST /api/domains/:id/verify/', () => {
    it('checks with real DNS lookups and reports each failure reason; the hostname is not routed meanwhile', async () => {
      const domain = await addDomain();
      expect(await verify(domain)).toMatchObject({ status: 'failed', failure_reason: 'nxdomain' });
      g.dns.records.set(domain.hostname, [{ type: 'CNAME', value: 'elsewhere.example' }]);
      expect(await verify(domain)).toMatchObject({ status: 'failed', failure_reason: 'wrong_target' });
      g.dns.records.set(domain.hostname, [{ type: 'CNAME', value: container.default_hostname }]);
      expect(await verify(domain)).toMatchObject({ status: 'failed', failure_reason: 'missing_txt' });
      expect((await g.through(domain.hostname)).status).toBe(404);
    });
  });

  describe('domain rechecks', () => {
    it('activates a failed domain on the scheduled recheck once its records are right, and routes it', async () => {
      const domain = await addDomain();
      await verify(domain);
      publishRecords(domain);
      await g.t.database.db.execute(
        `update domains set last_checked_at = now() - interval '2 hours' where id = '${domain.id}'` as never,
      );
      expect(await g.t.app.services.domains.recheckDue()).toBeGreaterThanOrEqual(1);
      expect((await g.api('GET', `/api/domains/${domain.id}/`)).json()).toMatchObject({
        status: 'active',
        failure_reason: null,
      });
      expect((await g.through(domain.hostname, '/gtm.js?id=GTM-ABC1234')).body).toBe(
        'tagging server saw /gtm.js?id=GTM-ABC1234',
      );
      const events = (await g.api('GET', `/api/events/?object_id=${domain.id}`))
        .json()
        .results.map((event: { type: string }) => event.type);
      expect(events).toEqual(['domain.verified', 'domain.failed']);
    });
  });

  describe('getDomain · GET /api/domains/:id/', () => {
    it("answers 404 for another tenant's domain", async () => {
      const domain = await addDomain();
      const other = await g.t.tenantWithKey('business');
      const stolen = await g.t.inject({ method: 'GET', url: `/api/domains/${domain.id}/`, token: other.token });
      expect(stolen.statusCode).toBe(404);
    });
  });

  describe('deleteDomain · DELETE /api/domains/:id/', () => {
    it('stops routing an active hostname', async () => {
      const domain = await addDomain();
      publishRecords(domain);
      expect(await verify(domain)).toMatchObject({ status: 'active' });
      expect((await g.through(domain.hostname)).status).toBe(200);
      await g.api('DELETE', `/api/domains/${domain.id}/`);
      expect((await g.through(domain.hostname)).status).toBe(404);
    });
  });

  describe('listDomains · GET /api/domains/', () => {
    it("lists the tenant's domains, and no other tenant's", async () => {
      const domain = await addDomain();
      const stranger = await g.t.tenantWithKey('business');
      const mine = (await g.api('GET', '/api/domains/')).json();
      expect(mine.results.map((row: { id: string }) => row.id)).toContain(domain.id);
      const theirs = await g.t.inject({ method: 'GET', url: '/api/domains/', token: stranger.token });
      expect(theirs.json().count).toBe(0);
    });
  });
});
