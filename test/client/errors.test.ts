import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiError, createTagportClient, type TagportClient } from '../../clients/typescript/src/index.js';

/**
 * Every error status the operations of resources.test.ts document (400, 401, 402, 403, 404, 409, 413, 415, 422,
 * 429), each answered through the typed client with its documented code. 500 and 503 are documented too but no
 * request of a client can cause them.
 */
const { baseUrl, apiKey, pages } = inject('tagport');
const agency = createTagportClient({ baseUrl, apiKey });
const CONFIG = Buffer.from('id=GTM-ERRORS1&env=1&auth=abcdefgh').toString('base64');
const UNKNOWN_TENANT = 'ten_01jdv3k2m8q4r7s9t0v1w2x3y4';

interface Answer {
  error?: ApiError;
  response: Response;
}

function expectError(answer: Answer, status: number, code: string): ApiError['error'] {
  expect(answer.response.status, JSON.stringify(answer.error)).toBe(status);
  expect(answer.error?.error.code).toBe(code);
  expect(answer.error?.api_meta.request_id).toBe(answer.response.headers.get('x-request-id'));
  return answer.error!.error;
}

describe('the typed client receives every documented error status with its code', () => {
  let client: { id: string; client: TagportClient };
  let containerId: string;

  beforeAll(async () => {
    const created = await agency.POST('/api/tenants/', { body: { name: 'Client free', plan: 'free' } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    client = { id: created.data!.id, client: createTagportClient({ baseUrl, apiKey, tenant: created.data!.id }) };
    const container = await client.client.POST('/api/containers/', {
      body: { name: 'Only', region: 'eu-central', config: CONFIG },
    });
    expect(container.response.status, JSON.stringify(container.error)).toBe(201);
    containerId = container.data!.id;
  });

  it('400: invalid periods, hostnames, intervals and webhook URLs, and a body the types refuse', async () => {
    expectError(
      await client.client.POST('/api/reports/', {
        body: { kind: 'usage', period_start: '2026-11-02T00:00:00Z', period_end: '2026-11-01T00:00:00Z' },
      }),
      400,
      'period_reversed',
    );
    expectError(
      await client.client.POST('/api/domains/', {
        body: { hostname: 'https://shop.example/', container_id: containerId },
      }),
      400,
      'invalid_hostname',
    );
    expectError(
      await client.client.POST('/api/monitors/', {
        body: { name: 'Too often', target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 60 },
      }),
      400,
      'interval_too_short',
    );
    expectError(
      await client.client.POST('/api/webhooks/', {
        body: { url: 'ftp://127.0.0.1:9/hooks', event_types: ['monitor.down'] },
      }),
      400,
      'https_required',
    );
    expectError(
      await client.client.POST('/api/webhooks/', {
        body: { url: 'https://hooks.invalid/', event_types: ['monitor.down'] },
      }),
      400,
      'url_not_allowed',
    );
    const untyped = {
      name: 'Typed',
      target: { type: 'url' as const, url: 'https://127.0.0.1:9/' },
      interval_seconds: 'often',
    };
    const invalid = expectError(
      // @ts-expect-error the types refuse what the service refuses: an interval is a number
      await client.client.POST('/api/monitors/', { body: untyped }),
      400,
      'invalid_parameter',
    );
    expect(invalid.param).toBe('interval_seconds');
  });

  it('401: an unknown key and a revoked key', async () => {
    const stranger = createTagportClient({ baseUrl, apiKey: 'tp_live_not-a-key' });
    expectError(await stranger.GET('/api/containers/'), 401, 'invalid_api_key');
    const key = await agency.POST('/api/api-keys/', { body: { name: 'short-lived' } });
    const revoked = await agency.DELETE('/api/api-keys/{id}/', { params: { path: { id: key.data!.id } } });
    expect(revoked.data?.status).toBe('revoked');
    const holder = createTagportClient({ baseUrl, apiKey: key.data!.token });
    expectError(
      await holder.POST('/api/webhooks/', { body: { url: 'https://127.0.0.1:9/', event_types: ['monitor.up'] } }),
      401,
      'api_key_revoked',
    );
  });

  it('402: past the plan limit', async () => {
    const second = await client.client.POST('/api/containers/', {
      body: { name: 'One too many', region: 'eu-central', config: CONFIG },
    });
    const error = expectError(second, 402, 'plan_limit_reached');
    expect(error.details).toMatchObject({ limit: 1 });
  });

  it('403: a role too low, and a client tenant that cannot own clients', async () => {
    const key = await client.client.POST('/api/api-keys/', { body: { name: 'reader', role: 'member' } });
    expect(key.response.status).toBe(201);
    const member = createTagportClient({ baseUrl, apiKey: key.data!.token });
    expectError(
      await member.POST('/api/containers/', {
        body: { name: 'Not mine to make', region: 'eu-central', config: CONFIG },
      }),
      403,
      'insufficient_role',
    );
    expectError(
      await client.client.POST('/api/tenants/', { body: { name: 'Grandchild' } }),
      403,
      'clients_not_allowed',
    );
  });

  it('404: an unknown report, an unknown event and a Tagport-Tenant that is not a client', async () => {
    expectError(
      await client.client.GET('/api/reports/{id}/', { params: { path: { id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4' } } }),
      404,
      'resource_missing',
    );
    expectError(
      await client.client.GET('/api/events/{id}/', { params: { path: { id: 'evt_01jdv3k2m8q4r7s9t0v1w2x3y4' } } }),
      404,
      'resource_missing',
    );
    const nowhere = createTagportClient({ baseUrl, apiKey, tenant: UNKNOWN_TENANT });
    expectError(await nowhere.GET('/api/monitors/'), 404, 'resource_missing');
    expectError(
      await agency.GET('/api/containers/', { params: { header: { 'Tagport-Tenant': UNKNOWN_TENANT } } }),
      404,
      'resource_missing',
    );
  });

  it('409: a hostname already one of the tenant domains', async () => {
    const body = { hostname: 'data.taken.example', container_id: containerId };
    expect((await client.client.POST('/api/domains/', { body })).response.status).toBe(201);
    expectError(await client.client.POST('/api/domains/', { body }), 409, 'hostname_taken');
  });

  it('413 and 415: a body too large, a body that is not JSON', async () => {
    expectError(
      await client.client.POST('/api/monitors/', {
        body: {
          name: 'x'.repeat(1_100_000),
          target: { type: 'url', url: 'https://127.0.0.1:9/' },
          interval_seconds: 300,
        },
      }),
      413,
      'body_too_large',
    );
    expectError(
      await client.client.POST('/api/webhooks/', {
        body: { url: 'https://127.0.0.1:9/hooks', event_types: ['monitor.down'] },
        headers: { 'content-type': 'text/plain' },
        bodySerializer: (body) => JSON.stringify(body),
      }),
      415,
      'unsupported_media_type',
    );
  });

  it('422: a page that cannot be reached', async () => {
    expectError(
      await client.client.POST('/api/v1/tracking-checker/scan/', { body: { url: pages.unreachable } }),
      422,
      'target_unreachable',
    );
  });

  it('429: the scan quota, and the request rate of a key', async () => {
    const overrides = await agency.PATCH('/api/tenants/{id}/', {
      params: { path: { id: client.id } },
      body: { feature_overrides: { tracking_checker_api_hourly: 0 } },
    });
    expect(overrides.response.status, JSON.stringify(overrides.error)).toBe(200);
    const quota = await client.client.POST('/api/v1/tracking-checker/scan/', { body: { url: pages.scannable } });
    expectError(quota, 429, 'scan_quota_exceeded');
    expect(Number(quota.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const key = await client.client.POST('/api/api-keys/', { body: { name: 'busy' } });
    const busy = createTagportClient({ baseUrl, apiKey: key.data!.token });
    const limit = Number((await busy.GET('/api/containers/')).response.headers.get('x-ratelimit-limit'));
    let answer: Answer = await busy.GET('/api/containers/');
    for (let call = 2; call <= limit && answer.response.status === 200; call++)
      answer = await busy.GET('/api/containers/');
    expectError(answer, 429, 'rate_limited');
    expect(answer.response.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
