import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_TYPES } from '../../src/modules/webhooks/schemas.js';
import { signPayload } from '../../src/modules/webhooks/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CONFIG } from '../helpers/gateway-app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface CatalogueEntry {
  status: number;
  type: string;
  code: string;
  example?: { message: string };
}

/** Every entry of every catalogue (src/http/errors.ts and src/modules/<feature>/errors.ts). */
async function catalogue(): Promise<CatalogueEntry[]> {
  const files = [
    'src/http/errors.ts',
    ...readdirSync(path.join(ROOT, 'src/modules')).map((feature) => `src/modules/${feature}/errors.ts`),
  ];
  const entries: CatalogueEntry[] = [];
  for (const file of files) {
    const module = (await import(path.join(ROOT, file)).catch(() => ({}))) as Record<string, unknown>;
    for (const value of Object.values(module))
      if (typeof value === 'object' && value !== null)
        for (const entry of Object.values(value))
          if (typeof entry?.code === 'string' && typeof entry?.status === 'number') entries.push(entry);
  }
  return entries;
}

interface Found {
  operationId: string;
  method: string;
  path: string;
  operation: any;
}

describe('OpenAPI document: examples, headers, Tagport-Tenant and named schemas', () => {
  let t: TestApp;
  let document: any;
  let operations: Found[];
  beforeAll(async () => {
    t = await startTestApp('pglite');
    document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    operations = [];
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths))
      for (const [method, operation] of Object.entries(item))
        operations.push({ operationId: operation.operationId, method: method.toUpperCase(), path, operation });
  });
  afterAll(() => t?.close());

  const operation = (operationId: string) => operations.find((found) => found.operationId === operationId)!.operation;
  const media = (operationId: string, status: number) =>
    operation(operationId).responses[String(status)].content['application/json'];
  const examples = (operationId: string, status: number) =>
    Object.values<{ value: { error: any } }>(media(operationId, status).examples).map((example) => example.value.error);
  const errorResponses = () =>
    operations.flatMap(({ operationId, operation }) =>
      Object.entries<any>(operation.responses)
        .filter(([, response]) => response.content?.['application/json']?.schema?.properties?.error)
        .map(([status, response]) => ({ operationId, status: Number(status), response })),
    );
  /** Follows `$ref`s into components. */
  const deref = (schema: any): any =>
    schema?.$ref
      ? deref(
          schema.$ref
            .split('/')
            .slice(1)
            .reduce((node: any, key: string) => node[key], document),
        )
      : schema;

  describe('error examples', () => {
    it('every catalogue code has a written example', async () => {
      const missing = (await catalogue()).filter((entry) => !entry.example?.message).map((entry) => entry.code);
      expect(missing).toEqual([]);
    });

    it("shows, for every error status of every operation, one example per code it lists, of that code's type", async () => {
      const types = new Map((await catalogue()).map((entry) => [`${entry.status} ${entry.code}`, entry.type]));
      const problems: string[] = [];
      for (const { operationId, status, response } of errorResponses()) {
        const listed: string[] = response.content['application/json'].schema.properties.error.properties.code.enum;
        const shown = Object.values<any>(response.content['application/json'].examples ?? {}).map(
          (example) => example.value.error,
        );
        for (const code of listed)
          if (!shown.some((error) => error.code === code))
            problems.push(`${operationId} ${status}: no example of ${code}`);
        for (const error of shown) {
          if (!listed.includes(error.code))
            problems.push(`${operationId} ${status}: example of unlisted ${error.code}`);
          if (types.get(`${status} ${error.code}`) !== error.type)
            problems.push(`${operationId} ${status}: ${error.code} shown as ${error.type}`);
        }
      }
      expect(errorResponses().length).toBeGreaterThan(250);
      expect(problems).toEqual([]);
    });

    it('shows what the operation really answers: 401 credentials, 429 rate limit or quota, 402, 409 with actions', () => {
      expect(examples('getContainer', 401)).toContainEqual(
        expect.objectContaining({ code: 'missing_credentials', type: 'authentication_error' }),
      );
      expect(examples('getContainer', 401).map((error) => error.code)).not.toContain('resource_missing');
      expect(examples('getContainer', 429)).toEqual([
        expect.objectContaining({ code: 'rate_limited', details: expect.objectContaining({ limit: 100 }) }),
      ]);
      expect(examples('scanPage', 429)).toContainEqual(
        expect.objectContaining({ code: 'scan_quota_exceeded', type: 'quota_error' }),
      );
      expect(examples('createContainer', 402)).toEqual([
        expect.objectContaining({ code: 'plan_limit_reached', details: { limit: 3 } }),
      ]);
      expect(examples('stopContainer', 409)).toEqual([
        expect.objectContaining({
          code: 'invalid_transition',
          details: expect.objectContaining({ allowed_actions: expect.any(Array) }),
        }),
      ]);
      expect(examples('getContainer', 404).map((error) => error.message)).toEqual([
        expect.stringMatching(/^No container with id 'ctr_/),
        expect.stringMatching(/^No tenant with id 'ten_/),
      ]);
      expect(examples('getMonitor', 404)[0].message).toMatch(/^No monitor with id 'mon_/);
      expect(examples('getContainer', 500)).toEqual([expect.objectContaining({ code: 'internal_error' })]);
    });
  });

  describe('response headers', () => {
    const headerNames = (operationId: string, status: number) =>
      Object.keys(operation(operationId).responses[String(status)].headers ?? {});

    it('declares each header once, as a component', () => {
      expect(Object.keys(document.components.headers)).toEqual(
        expect.arrayContaining([
          'XRequestId',
          'RateLimitPolicy',
          'RateLimit',
          'XRateLimitLimit',
          'XRateLimitRemaining',
          'XRateLimitReset',
          'RetryAfter',
          'WWWAuthenticate',
          'Location',
        ]),
      );
      for (const { operation } of operations)
        for (const response of Object.values<any>(operation.responses))
          for (const header of Object.values<any>(response.headers ?? {}))
            expect(header.$ref).toMatch(/^#\/components\/headers\//);
    });

    it('declares them where they are sent: every response, 429/503 Retry-After, 401 WWW-Authenticate, 201 Location', () => {
      const problems: string[] = [];
      for (const { operationId, path, operation } of operations)
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const names = Object.keys(response.headers ?? {});
          const expected = ['X-Request-Id'];
          if (!['/healthz', '/readyz'].includes(path))
            expected.push('RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining');
          if (['429', '503'].includes(status) && response.content?.['application/json']?.schema?.properties?.error)
            expected.push('Retry-After');
          if (status === '401') expected.push('WWW-Authenticate');
          for (const name of expected) if (!names.includes(name)) problems.push(`${operationId} ${status}: no ${name}`);
        }
      expect(problems).toEqual([]);
      expect(headerNames('createContainer', 201)).toContain('Location');
      expect(headerNames('createApiKey', 201)).not.toContain('Location'); // keys have no GET of their own
      expect(headerNames('getContainer', 200)).not.toContain('Retry-After');
      expect(headerNames('health', 200)).toEqual(['X-Request-Id']);
    });

    it('sends the declared headers', async () => {
      const { token } = await t.tenantWithKey('pro');
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: { name: 'Shop', region: 'eu-central', config: CONFIG },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.headers.location).toBe(`/api/containers/${created.json().id}/`);
      expect((await t.inject({ method: 'GET', url: created.headers.location as string, token })).statusCode).toBe(200);
      const key = await t.inject({ method: 'POST', url: '/api/api-keys/', token, payload: { name: 'CI' } });
      expect(key.statusCode).toBe(201);
      expect(key.headers.location).toBeUndefined();

      const anonymous = await t.inject({ method: 'GET', url: `/api/containers/${created.json().id}/` });
      expect(anonymous.statusCode).toBe(401);
      for (const [response, operationId, status] of [
        [created, 'createContainer', 201],
        [anonymous, 'getContainer', 401],
      ] as const)
        for (const name of headerNames(operationId, status))
          expect(response.headers[name.toLowerCase()], `${operationId} ${status} ${name}`).toBeDefined();
    });
  });

  describe('Tagport-Tenant', () => {
    it('is a reusable header parameter on every credentialed operation, and on no public one', () => {
      expect(document.components.parameters.TagportTenant).toMatchObject({ name: 'Tagport-Tenant', in: 'header' });
      const withTenant = (found: Found) =>
        (found.operation.parameters ?? []).some((p: any) => p.$ref === '#/components/parameters/TagportTenant');
      const credentialed = operations.filter((found) => (found.operation.security ?? document.security).length > 0);
      expect(credentialed.filter((found) => !withTenant(found)).map((found) => found.operationId)).toEqual([]);
      expect(operations.filter((found) => !credentialed.includes(found) && withTenant(found))).toEqual([]);
      expect(withTenant(operations.find((found) => found.operationId === 'login')!)).toBe(false);
    });

    it('documents 404 for an unknown tenant where the header is honoured, and 413/415 on every body-reading method', () => {
      const problems: string[] = [];
      for (const { operationId, method, operation } of operations) {
        const codes = (status: number) =>
          operation.responses[String(status)]?.content?.['application/json']?.schema?.properties?.error?.properties
            ?.code?.enum ?? [];
        const honoured = (operation.parameters ?? []).some((p: any) => p.$ref?.endsWith('/TagportTenant'));
        if (honoured && !codes(404).includes('resource_missing')) problems.push(`${operationId}: no 404`);
        if (['POST', 'PATCH', 'PUT', 'DELETE'].includes(method)) {
          if (!codes(413).includes('body_too_large')) problems.push(`${operationId}: no 413`);
          if (!codes(415).includes('unsupported_media_type')) problems.push(`${operationId}: no 415`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('named schemas', () => {
    const RESOURCES = [
      'Tenant',
      'ApiKey',
      'CreatedApiKey',
      'Container',
      'ContainerUsage',
      'RequestLog',
      'Domain',
      'Monitor',
      'MonitorCheck',
      'MonitorStats',
      'Incident',
      'Webhook',
      'CreatedWebhook',
      'WebhookDelivery',
      'Report',
      'Scan',
      'ScanResult',
      'Event',
      'Error',
      'ErrorDetail',
      'ApiMeta',
    ];

    it('puts the resources in components.schemas under stable names', () => {
      expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(RESOURCES));
      expect(document.components.schemas.Container.properties.allowed_actions).toBeDefined();
      expect(Object.keys(document.components.schemas).filter((name) => name.startsWith('def-'))).toEqual([]);
    });

    it('references them from the operations: single objects, list items and error bodies', () => {
      const single = media('getContainer', 200).schema;
      expect(single.allOf).toEqual([{ $ref: '#/components/schemas/Container' }]);
      expect(single.properties.api_meta).toEqual({ $ref: '#/components/schemas/ApiMeta' });
      expect(media('listContainers', 200).schema.properties.results.items).toEqual({
        $ref: '#/components/schemas/Container',
      });
      expect(media('scanPage', 200).schema.allOf).toEqual([{ $ref: '#/components/schemas/ScanResult' }]);
      expect(media('listScans', 200).schema.properties.results.items).toEqual({ $ref: '#/components/schemas/Scan' });
      expect(deref(media('createApiKey', 201).schema.allOf[0]).properties.token).toBeDefined();
      expect(media('getContainer', 404).schema.allOf).toEqual([{ $ref: '#/components/schemas/Error' }]);
    });

    it('repeats no named schema inline in an operation', () => {
      const named = Object.entries<any>(document.components.schemas)
        .filter(([, schema]) => schema.properties)
        .map(([name, schema]) => [name, Object.keys(schema.properties).sort().join()] as const);
      const copies: string[] = [];
      const walk = (node: any, where: string) => {
        if (!node || typeof node !== 'object') return;
        if (node.properties) {
          const keys = Object.keys(node.properties).sort().join();
          for (const [name, shape] of named) if (shape === keys) copies.push(`${where}: ${name}`);
        }
        for (const [key, child] of Object.entries(node)) walk(child, `${where}/${key}`);
      };
      for (const { operationId, operation } of operations) walk(operation.responses, operationId);
      expect(copies).toEqual([]);
    });
  });

  describe('webhooks', () => {
    it('documents every event type with its body, the signature header and how to verify it', () => {
      expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
      for (const type of EVENT_TYPES) {
        const post = document.webhooks[type].post;
        expect(post.parameters).toContainEqual(
          expect.objectContaining({ name: 'Tagport-Signature', in: 'header', required: true }),
        );
        expect(post.description).toContain('HMAC-SHA256');
        const body = deref(post.requestBody.content['application/json'].schema);
        expect(body.properties.type.enum, type).toEqual([type]);
        expect(body.required).toEqual(['id', 'type', 'created_at', 'tenant_id', 'data']);
      }
    });

    it('verifies a real signature with the code the description shows', () => {
      const code = /```js\n([\s\S]+?)```/.exec(document.webhooks['monitor.down'].post.description)![1];
      const verify = new Function('crypto', 'header', 'secret', 'rawBody', `${code}; return valid;`);
      const rawBody = JSON.stringify({ id: 'evt_1', type: 'monitor.down' });
      const header = signPayload('whsec_test', rawBody);
      expect(
        verify({ createHmac, timingSafeEqual: (a: Buffer, b: Buffer) => a.equals(b) }, header, 'whsec_test', rawBody),
      ).toBe(true);
      expect(
        verify({ createHmac, timingSafeEqual: (a: Buffer, b: Buffer) => a.equals(b) }, header, 'whsec_other', rawBody),
      ).toBe(false);
    });

    it('describes the body a real delivery carries', async () => {
      const app = await startTestApp('pglite', { allowPrivateNetworks: true, runWorkers: false });
      try {
        const { token } = await app.tenantWithKey('pro');
        const hook = await app.inject({
          method: 'POST',
          url: '/api/webhooks/',
          token,
          payload: { url: 'https://127.0.0.1:9/hook', event_types: ['container.status_changed'] },
        });
        expect(hook.statusCode, hook.body).toBe(201);
        const created = await app.inject({
          method: 'POST',
          url: '/api/containers/',
          token,
          payload: { name: 'Shop', region: 'eu-central', config: CONFIG },
        });
        expect(created.statusCode).toBe(201);
        const deliveries = await app.inject({
          method: 'GET',
          url: `/api/webhooks/${hook.json().id}/deliveries/`,
          token,
        });
        const [delivery] = deliveries.json().results;
        const ajv = addFormats.default(new Ajv2020({ strict: false }));
        ajv.addSchema({ ...document, $id: 'openapi.json' });
        const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ContainerStatusChangedEvent' });
        expect(validate(delivery.payload), JSON.stringify(validate.errors)).toBe(true);
        expect(validate({ ...delivery.payload, data: { ...delivery.payload.data, to: 'nowhere' } })).toBe(false);
      } finally {
        await app.close();
      }
    });
  });

  describe('partial updates', () => {
    it('gives no field of a PATCH body a default (the validator would fill it in and the update would reset it)', () => {
      const resolve = (node: any) => (node?.$ref ? document.components.schemas[node.$ref.split('/').pop()] : node);
      const defaults: string[] = [];
      const walk = (node: any, where: string) => {
        const schema = resolve(node);
        if (!schema || typeof schema !== 'object') return;
        if (where.includes('.') && 'default' in schema) defaults.push(where);
        for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, `${where}.${key}`);
        for (const key of ['anyOf', 'oneOf', 'allOf']) for (const value of schema[key] ?? []) walk(value, where);
        if (schema.items) walk(schema.items, `${where}[]`);
      };
      const patches = Object.entries<any>(document.paths).filter(([, item]) => item.patch);
      expect(patches.length).toBeGreaterThanOrEqual(7);
      for (const [path, item] of patches)
        walk(item.patch.requestBody?.content?.['application/json']?.schema, `PATCH ${path} body`);
      expect(defaults).toEqual([]);
    });
  });

  describe('descriptions', () => {
    it('describes every operation beyond its role, and the API as it is now', () => {
      const bare = operations
        .filter(({ operation }) => !operation.description || operation.description.startsWith('**Minimum role'))
        .map(({ operationId }) => operationId);
      expect(bare).toEqual([]);
      for (const word of ['containers', 'domains', 'monitors', 'webhooks', 'reports', 'tracking checker'])
        expect(document.info.description).toContain(word);
    });

    it('writes no raw HTML tag in a Markdown description (only inside code)', () => {
      const raw: string[] = [];
      const walk = (node: any, where: string) => {
        if (!node || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key === 'description' && typeof value === 'string') {
            const text = value.replace(/```[\s\S]*?```|`[^`]*`/g, '');
            if (/<\/?[a-zA-Z][^<>]*>/.test(text)) raw.push(`${where}: ${value.slice(0, 80)}`);
          } else walk(value, `${where}/${key}`);
        }
      };
      walk(document, '#');
      expect(raw).toEqual([]);
      const kind =
        document.components.schemas.ScanResult.properties.trackers.items.properties.evidence.items.properties.kind;
      expect(kind.description).toContain('a &lt;script src&gt; in the HTML');
    });
  });
});
