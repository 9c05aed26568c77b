import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createTagportClient, type TagportClient } from '../../clients/typescript/src/index.js';

/**
 * The typed client against the running service (test/client/service.ts): every call goes through
 * clients/typescript, typed from the document the service serves, so a drift between the two fails here or in
 * types.test.ts.
 */
const { baseUrl, apiKey, pages } = inject('tagport');
const agency = createTagportClient({ baseUrl, apiKey });
const CONFIG = Buffer.from('id=GTM-CLIENT1&env=1&auth=abcdefgh').toString('base64');

/** A client tenant of the agency and the agency's client acting on it (the Tagport-Tenant header). */
async function clientTenant(plan: 'free' | 'pro' = 'pro'): Promise<{ id: string; client: TagportClient }> {
  const { data, error, response } = await agency.POST('/api/tenants/', { body: { name: `Client ${plan}`, plan } });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return { id: data!.id, client: createTagportClient({ baseUrl, apiKey, tenant: data!.id }) };
}

describe('the typed client drives the service', () => {
  let tenant: { id: string; client: TagportClient };
  beforeAll(async () => {
    tenant = await clientTenant('pro');
  });

  it('creates a client tenant and an API key that acts on it', async () => {
    const created = await tenant.client.POST('/api/api-keys/', { body: { name: 'deploys', role: 'member' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'deploys', role: 'member' });
    const own = createTagportClient({ baseUrl, apiKey: created.data!.token });
    const tenants = await own.GET('/api/tenants/');
    expect(tenants.data?.results.map((row) => row.id)).toEqual([tenant.id]);
  });

  it('creates a container and a domain for it, and reads the container events by their evt_ ids', async () => {
    const container = await tenant.client.POST('/api/containers/', {
      body: { name: 'Shop', region: 'eu-central', config: CONFIG },
    });
    expect(container.response.status, JSON.stringify(container.error)).toBe(201);
    expect(container.response.headers.get('location')).toBe(`/api/containers/${container.data!.id}/`);
    const domain = await tenant.client.POST('/api/domains/', {
      body: { hostname: 'data.client-shop.example', container_id: container.data!.id },
    });
    expect(domain.response.status, JSON.stringify(domain.error)).toBe(201);
    expect(domain.data).toMatchObject({ hostname: 'data.client-shop.example', status: 'pending_verification' });

    const events = await tenant.client.GET('/api/events/', {
      params: { query: { object_id: container.data!.id } },
    });
    const [first] = events.data!.results;
    expect(first).toMatchObject({ type: 'container.status_changed', object_id: container.data!.id });
    const event = await tenant.client.GET('/api/events/{id}/', { params: { path: { id: first.id } } });
    expect(event.data).toMatchObject({ id: first.id, data: first.data, created_at: first.created_at });
  });

  it('creates monitors and lists them page by page', async () => {
    const names = ['Home', 'Cart', 'Checkout'];
    for (const name of names) {
      const monitor = await tenant.client.POST('/api/monitors/', {
        body: { name, target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 300 },
      });
      expect(monitor.response.status, JSON.stringify(monitor.error)).toBe(201);
    }
    const first = await tenant.client.GET('/api/monitors/', { params: { query: { page_size: 2 } } });
    expect(first.data).toMatchObject({ count: 3, page: 1, page_size: 2, total_pages: 2, previous: null });
    expect(first.data!.next).toContain('page=2');
    const second = await tenant.client.GET('/api/monitors/', { params: { query: { page: 2, page_size: 2 } } });
    expect(second.data).toMatchObject({ page: 2, next: null });
    const listed = [...first.data!.results, ...second.data!.results].map((monitor) => monitor.name);
    expect(listed.sort()).toEqual([...names].sort());
  });

  it('creates a webhook, whose secret is shown once', async () => {
    const webhook = await tenant.client.POST('/api/webhooks/', {
      body: { url: 'https://127.0.0.1:9/hooks', event_types: ['monitor.down', 'report.ready'] },
    });
    expect(webhook.response.status, JSON.stringify(webhook.error)).toBe(201);
    expect(webhook.data!.secret).toMatch(/^whsec_/);
    const listed = await tenant.client.GET('/api/webhooks/');
    expect(listed.data!.results).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
  });

  it('requests a report and reads it once the worker built it', async () => {
    const report = await tenant.client.POST('/api/reports/', {
      body: { kind: 'usage', period_start: '2026-11-01T00:00:00Z', period_end: '2026-11-02T00:00:00Z' },
    });
    expect(report.response.status, JSON.stringify(report.error)).toBe(202);
    expect(report.data!.status).toBe('queued');
    const id = report.data!.id;
    let status = report.data!.status;
    for (let attempt = 0; attempt < 100 && status !== 'ready' && status !== 'failed'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await tenant.client.GET('/api/reports/{id}/', { params: { path: { id } } })).data!.status;
    }
    expect(status).toBe('ready');
    const file = await tenant.client.GET('/api/reports/{id}/download/', { params: { path: { id } } });
    expect(file.response.status).toBe(200);
    expect(file.data).toMatchObject({
      report_id: id,
      kind: 'usage',
      rows: [expect.objectContaining({ day: '2026-11-01' })],
    });
    const reports = await tenant.client.GET('/api/reports/');
    expect(reports.data!.results.map((row) => row.id)).toContain(id);
  });

  it('scans a fixture page and lists the scan', async () => {
    const scan = await tenant.client.POST('/api/v1/tracking-checker/scan/', { body: { url: pages.scannable } });
    expect(scan.response.status, JSON.stringify(scan.error)).toBe(200);
    const result = scan.data!;
    // 200 answers the finished scan; 202 (Prefer: respond-async) the scan resource still running.
    if (!('trackers' in result)) throw new Error('the scan was answered asynchronously');
    expect(result.scan_id).toMatch(/^scn_/);
    expect(result.trackers).toEqual([]);
    const scans = await tenant.client.GET('/api/v1/tracking-checker/scans/');
    expect(scans.data!.results.map((row) => row.scan_id)).toContain(result.scan_id);
  });
});
