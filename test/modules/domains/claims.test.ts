import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { domains } from '../../../src/db/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { testGateway } from '../../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
const GATEWAY_IP = '203.0.113.10';

type Account = { tenantId: string; token: string; containerId: string; containerHost: string };
type Claim = {
  id: string;
  hostname: string;
  status: string;
  failure_reason: string | null;
  dns_records: Array<{ type: string; name: string; value: string }>;
};

describe.each(backends)('custom domain claims on %s', (backend) => {
  let t: TestApp;
  let dns: TestDns;
  let hostCounter = 0;

  beforeAll(async () => {
    dns = await startDns();
    t = await startTestApp(backend, {
      runWorkers: false,
      gateway: testGateway({ publicIps: [GATEWAY_IP], logSampleRate: 0 }),
      dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    dns?.close();
  });

  async function account(): Promise<Account> {
    const tenant = await t.tenantWithKey('business');
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token: tenant.token,
      payload: { name: 'Claims', region: 'eu-central', config: CONFIG },
    });
    expect(container.statusCode, container.body).toBe(201);
    return { ...tenant, containerId: container.json().id, containerHost: container.json().default_hostname };
  }
  const hostname = () => `data${++hostCounter}.shop-${backend}.example`;
  const claim = (who: Account, name: string) =>
    t.inject({
      method: 'POST',
      url: '/api/domains/',
      token: who.token,
      payload: { hostname: name, container_id: who.containerId },
    });
  const verify = (who: Account, id: string) =>
    t.inject({ method: 'POST', url: `/api/domains/${id}/verify/`, token: who.token });
  const get = (who: Account, id: string) => t.inject({ method: 'GET', url: `/api/domains/${id}/`, token: who.token });
  const events = async (who: Account, id: string) =>
    (await t.inject({ method: 'GET', url: `/api/events/?object_id=${id}`, token: who.token })).json().results;
  const txtOf = (domain: Claim) => domain.dns_records.find((record) => record.type === 'TXT')!;
  /** DNS as the hostname's owner sets it up for one account: a CNAME to its container and its TXT token. */
  const pointTo = (who: Account, domain: Claim) => {
    dns.records.set(domain.hostname, [{ type: 'CNAME', value: who.containerHost }]);
    dns.records.set(txtOf(domain).name, [{ type: 'TXT', value: txtOf(domain).value }]);
  };
  const liveClaims = (name: string) =>
    t.database.db
      .select()
      .from(domains)
      .where(and(eq(domains.hostname, name), isNull(domains.deletedAt)));

  describe('createDomain · POST /api/domains/', () => {
    it.each([
      ['a path', 'example.com/path'],
      ['a scheme', 'https://example.com'],
      ['a port', 'example.com:8443'],
      ['a query', 'example.com?x=1'],
      ['a fragment', 'example.com#top'],
      ['user info', 'user@example.com'],
      ['a backslash path', 'example.com\\path'],
      ['an IPv6 literal', '[::1]'],
    ])('refuses a hostname with %s with a 400 naming hostname, and stores nothing', async (_name, input) => {
      const owner = await account();
      const response = await claim(owner, input);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_hostname',
        param: 'hostname',
      });
      expect((await t.inject({ method: 'GET', url: '/api/domains/', token: owner.token })).json().count).toBe(0);
    });

    it('lets a second account claim a hostname another holds pending, without disclosing the other claim', async () => {
      const [first, second] = [await account(), await account()];
      const name = hostname();
      const held = await claim(first, name);
      expect(held.statusCode).toBe(201);
      const response = await claim(second, name);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ hostname: name, status: 'pending_verification' });
      expect(response.body).not.toContain(first.tenantId);
      expect(response.body).not.toContain(held.json().id);
      expect(txtOf(response.json()).value).not.toBe(txtOf(held.json()).value);
    });

    it('still refuses the same hostname twice for one account with 409 hostname_taken', async () => {
      const owner = await account();
      const name = hostname();
      expect((await claim(owner, name)).statusCode).toBe(201);
      const again = await claim(owner, name.toUpperCase());
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('hostname_taken');
    });
  });

  describe('verifyDomain · POST /api/domains/:id/verify/', () => {
    it('gives the hostname to the account that proves ownership and releases the other pending claims with domain.released', async () => {
      const [squatter, owner] = [await account(), await account()];
      const name = hostname();
      const squatted = (await claim(squatter, name)).json();
      const mine = (await claim(owner, name)).json();
      pointTo(owner, mine);

      const verified = await verify(owner, mine.id);
      expect(verified.json()).toMatchObject({ status: 'active', failure_reason: null });
      expect((await get(squatter, squatted.id)).statusCode).toBe(404);
      const released = (await events(squatter, squatted.id))[0];
      expect(released).toMatchObject({
        type: 'domain.released',
        data: { hostname: name, reason: 'ownership_proven_elsewhere' },
      });
      expect(JSON.stringify(released)).not.toContain(owner.tenantId);
      expect((await liveClaims(name)).map((row) => row.id)).toEqual([mine.id]);
    });

    it("keeps an active hostname with its holder while the holder's proof holds, and hands it over once it does not", async () => {
      const [holder, newcomer] = [await account(), await account()];
      const name = hostname();
      const held = (await claim(holder, name)).json();
      // A records to the gateway route the hostname for any account; the TXT tokens decide.
      dns.records.set(name, [{ type: 'A', value: GATEWAY_IP }]);
      dns.records.set(txtOf(held).name, [{ type: 'TXT', value: txtOf(held).value }]);
      expect((await verify(holder, held.id)).json().status).toBe('active');

      const wanted = (await claim(newcomer, name)).json();
      dns.records.set(txtOf(held).name, [
        { type: 'TXT', value: txtOf(held).value },
        { type: 'TXT', value: txtOf(wanted).value },
      ]);
      expect((await verify(newcomer, wanted.id)).json()).toMatchObject({
        status: 'failed',
        failure_reason: 'hostname_in_use',
      });
      expect((await get(holder, held.id)).json().status).toBe('active');

      dns.records.set(txtOf(held).name, [{ type: 'TXT', value: txtOf(wanted).value }]);
      expect((await verify(newcomer, wanted.id)).json()).toMatchObject({ status: 'active', failure_reason: null });
      expect((await get(holder, held.id)).statusCode).toBe(404);
      expect(
        (await events(holder, held.id)).map((event: { type: string; data: { reason: string } }) => [
          event.type,
          event.data.reason,
        ]),
      ).toEqual([
        ['domain.released', 'ownership_proven_elsewhere'],
        ['domain.failed', 'missing_txt'],
        ['domain.verified', null],
      ]);
    });

    it('lets exactly one of two accounts proving at the same moment have the hostname', async () => {
      const [one, two] = [await account(), await account()];
      const name = hostname();
      const [a, b] = [(await claim(one, name)).json(), (await claim(two, name)).json()];
      dns.records.set(name, [{ type: 'A', value: GATEWAY_IP }]);
      dns.records.set(txtOf(a).name, [
        { type: 'TXT', value: txtOf(a).value },
        { type: 'TXT', value: txtOf(b).value },
      ]);
      const results = await Promise.all([verify(one, a.id), verify(two, b.id)]);
      const active = results.filter((result) => result.statusCode === 200 && result.json().status === 'active');
      expect(active).toHaveLength(1);
      const live = await liveClaims(name);
      expect(live.filter((row) => row.status === 'active')).toHaveLength(1);
    });
  });

  describe('pending claims expire', () => {
    it('releases a claim never verified within the pending period on the schedule, with domain.released', async () => {
      const squatter = await account();
      const name = hostname();
      const stale = (await claim(squatter, name)).json();
      await t.database.db
        .update(domains)
        .set({ createdAt: sql`now() - interval '8 days'` })
        .where(eq(domains.id, stale.id));
      await t.app.services.domains.recheckDue();
      expect((await get(squatter, stale.id)).statusCode).toBe(404);
      expect((await events(squatter, stale.id))[0]).toMatchObject({
        type: 'domain.released',
        data: { hostname: name, reason: 'expired' },
      });
    });

    it("treats the account's own expired claim as free when it adds the hostname again", async () => {
      const owner = await account();
      const name = hostname();
      const stale = (await claim(owner, name)).json();
      await t.database.db
        .update(domains)
        .set({ createdAt: sql`now() - interval '8 days'` })
        .where(eq(domains.id, stale.id));
      const again = await claim(owner, name);
      expect(again.statusCode, again.body).toBe(201);
      expect((await get(owner, stale.id)).statusCode).toBe(404);
    });

    it('keeps a claim that was verified once, even when it is failing now', async () => {
      const owner = await account();
      const name = hostname();
      const domain = (await claim(owner, name)).json();
      pointTo(owner, domain);
      expect((await verify(owner, domain.id)).json().status).toBe('active');
      dns.records.delete(name);
      expect((await verify(owner, domain.id)).json().status).toBe('failed');
      await t.database.db
        .update(domains)
        .set({ createdAt: sql`now() - interval '30 days'` })
        .where(eq(domains.id, domain.id));
      await t.app.services.domains.recheckDue();
      expect((await get(owner, domain.id)).statusCode).toBe(200);
    });
  });
});

describe('DOMAIN_PENDING_TTL_HOURS', () => {
  it('defaults to 7 days and can be set', () => {
    expect(loadConfig({}).domainPendingTtlHours).toBe(168);
    expect(loadConfig({ DOMAIN_PENDING_TTL_HOURS: '24' }).domainPendingTtlHours).toBe(24);
  });
});
