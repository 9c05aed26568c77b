import net from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { backends, createTestDatabase, type Backend, type TestDatabase } from '../helpers/database.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

/** The app with its log lines kept in memory, to check what reaches the log. */
async function startLoggedApp(backend: Backend) {
  const lines: string[] = [];
  const testDatabase: TestDatabase = await createTestDatabase(backend);
  // Private networks only so that webhook and monitor URLs on 127.0.0.1 pass the check without DNS; no workers
  // run, so nothing is ever sent to them.
  const config = testConfig({ logLevel: 'info', allowPrivateNetworks: true, runWorkers: false });
  const app: FastifyInstance = await buildApp({
    config,
    database: testDatabase.database,
    logStream: { write: (line) => lines.push(line) },
  });
  await app.ready();
  const tenant = await app.services.tenants.create({ name: 'Safety agency', plan: 'agency', parentId: null });
  const { token } = await app.services.apiKeys.create(tenant.id, { name: 'safety' });
  return {
    app,
    testDatabase,
    lines,
    inject: (options: InjectOptions) =>
      app.inject({ ...options, headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) } }),
    async close() {
      await app.close();
      await testDatabase.drop();
    },
  };
}

function expectEnvelope(
  response: { statusCode: number; headers: Record<string, unknown>; json(): any },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
  expect(body.api_meta.request_id).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers['x-request-id']).toBe(body.api_meta.request_id);
  return body.error;
}

describe.each(backends)('request safety on %s', (backend) => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp(backend);
  });
  afterAll(() => t?.close());

  describe('control characters', () => {
    it.each([
      ['/api/tenants/', { name: 'a\u0000b' }, 'name'],
      ['/api/api-keys/', { name: 'a\u0000b' }, 'name'],
      ['/api/monitors/', { name: 'a\u0000b', target: { type: 'url', url: 'http://127.0.0.1:9/' } }, 'name'],
      ['/api/containers/', { name: 'a\u0000b', region: 'eu-central', config: CONFIG }, 'name'],
      ['/api/webhooks/', { url: 'http://127.0.0.1:9/hook\u0000', event_types: ['monitor.down'] }, 'url'],
      ['/api/containers/', { name: 'x', region: 'eu-central', config: `${CONFIG}\u0007` }, 'config'],
      ['/api/monitors/', { name: 'm', target: { type: 'url', url: 'http://127.0.0.1:9/\u001b[31m' } }, 'target.url'],
      ['/api/tenants/', { name: 'del\u007f' }, 'name'],
    ])('POST %s with %j is refused with 400 naming the field', async (url, payload, param) => {
      const response = await t.inject({ method: 'POST', url, payload });
      const error = expectEnvelope(response, 400, 'invalid_character');
      expect(error).toMatchObject({ type: 'invalid_request_error', param, details: { location: 'body' } });
    });

    it('refuses control characters in query strings and path parameters, and in object keys', async () => {
      const query = await t.inject({ method: 'GET', url: '/api/events/?type=%00' });
      expect(expectEnvelope(query, 400, 'invalid_character')).toMatchObject({
        param: 'type',
        details: { location: 'querystring', character: 'U+0000' },
      });
      const newline = await t.inject({ method: 'GET', url: '/api/events/?object_id=a%0Ab' });
      expect(expectEnvelope(newline, 400, 'invalid_character')).toMatchObject({ param: 'object_id' });
      const path = await t.inject({ method: 'GET', url: '/api/tenants/ten_%00/' });
      expect(expectEnvelope(path, 400, 'invalid_character')).toMatchObject({
        param: 'id',
        details: { location: 'params' },
      });
      const key = await t.inject({
        method: 'PATCH',
        url: '/api/tenants/ten_01jdv3k2m8q4r7s9t0v1w2x3y4/',
        payload: { feature_overrides: { 'a\u0000': 1 } },
      });
      expect(expectEnvelope(key, 400, 'invalid_character')).toMatchObject({ param: 'feature_overrides.a\\u0000' });
    });

    it('keeps tab and line breaks in bodies', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/tenants/',
        payload: { name: 'Line one\r\nline\ttwo' },
      });
      expect(response.statusCode).toBe(201);
      expect(response.json().name).toBe('Line one\r\nline\ttwo');
    });
  });

  describe('framework errors in the error envelope', () => {
    it('answers a path parameter over 200 characters with 400 path_parameter_too_long', async () => {
      const response = await t.inject({ method: 'GET', url: `/api/tenants/${'x'.repeat(201)}/` });
      expectEnvelope(response, 400, 'path_parameter_too_long');
    });

    it('answers a malformed percent-encoding with 400 invalid_url', async () => {
      const response = await t.inject({ method: 'GET', url: '/api/tenants/%ZZ/' });
      expect(expectEnvelope(response, 400, 'invalid_url').message).not.toContain('%ZZ');
    });

    it.each(['application/json, text/plain', ';;;', 'application/jsonx'])(
      'answers the content type %j with 415',
      async (contentType) => {
        const response = await t.inject({
          method: 'POST',
          url: '/api/tenants/',
          headers: { 'content-type': contentType },
          payload: '{"name":"x"}',
        });
        expectEnvelope(response, 415, 'unsupported_media_type');
      },
    );

    it('answers a JSON array body with a message that names no phantom field', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/tenants/',
        headers: { 'content-type': 'application/json' },
        payload: '[[[]]]',
      });
      expect(expectEnvelope(response, 400, 'invalid_parameter').message).toBe(
        'The request body must be of type object.',
      );
    });

    it('answers a request with a malformed header line (refused by the HTTP parser) in the envelope', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as net.AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write('GET /api/tenants/ HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'),
        );
        let data = '';
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      const requestId = /x-request-id: (req_[0-9a-z]{26})/i.exec(head)?.[1];
      expect(JSON.parse(body)).toEqual({
        error: { type: 'invalid_request_error', code: 'malformed_request', message: expect.any(String) },
        api_meta: { request_id: requestId },
      });
    });
  });

  describe('echoed input', () => {
    it('shortens a long unknown Tagport-Tenant instead of repeating it whole', async () => {
      const requested = `ten_${'x'.repeat(5000)}`;
      const response = await t.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { 'tagport-tenant': requested },
      });
      const error = expectEnvelope(response, 404, 'resource_missing');
      expect(error.message.length).toBeLessThan(120);
      expect(error.message).toContain(`${requested.slice(0, 64)}…`);
    });
  });

  describe('the log', () => {
    it('never receives the parameters or the failing row of a statement that failed', async () => {
      // Make the inserts fail inside the database: the statement then carries a new key's hash and a webhook's secret.
      const { db } = t.testDatabase.database;
      await db.execute(sql.raw('alter table api_keys add constraint refuse_new_keys check (false) not valid'));
      await db.execute(sql.raw('alter table webhooks add constraint refuse_new_webhooks check (false) not valid'));
      const key = await t.inject({ method: 'POST', url: '/api/api-keys/', payload: { name: 'doomed' } });
      const webhook = await t.inject({
        method: 'POST',
        url: '/api/webhooks/',
        payload: { url: 'http://127.0.0.1:9/hook', event_types: ['monitor.down'] },
      });
      await db.execute(sql.raw('alter table api_keys drop constraint refuse_new_keys'));
      await db.execute(sql.raw('alter table webhooks drop constraint refuse_new_webhooks'));

      const log = t.lines.join('');
      expect(log).not.toContain('whsec_');
      expect(log).not.toMatch(/[0-9a-f]{64}/);
      expect(log).not.toContain('params');
      expect(log).not.toContain('Failing row');
      for (const response of [key, webhook]) {
        expectEnvelope(response, 500, 'internal_error');
        const logged = t.lines
          .filter((line) => line.includes(response.json().api_meta.request_id))
          .map((line) => JSON.parse(line));
        const failure = logged.find((line) => line.msg === 'unhandled error');
        expect(failure.err).toMatchObject({
          type: 'DrizzleQueryError',
          message: expect.stringMatching(/^Failed query: insert into/),
        });
        expect(failure.err.cause).toMatchObject({ code: '23514', constraint: expect.stringMatching(/^refuse_new/) });
      }
    });
  });
});
