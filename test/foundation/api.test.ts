import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiToken } from '../../src/lib/tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

describe.each(backends)('API foundation on %s', (backend) => {
  let t: TestApp;
  let agency: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    t = await startTestApp(backend);
    agency = await t.tenantWithKey('agency');
  });
  afterAll(() => t?.close());

  describe('conventions', () => {
    it('lists tenants in the envelope with api_meta.request_id equal to X-Request-Id', async () => {
      const response = await t.inject({ method: 'GET', url: '/api/tenants/', token: agency.token });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ count: 1, page: 1, page_size: 20, total_pages: 1, next: null, previous: null });
      expect(body.results[0]).toMatchObject({ id: agency.tenantId, plan: 'agency', parent_id: null, status: 'active' });
      expect(body.results[0].features.tracking_checker_api_hourly).toBe(300);
      expect(body.results[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(body.api_meta.request_id).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.headers['x-request-id']).toBe(body.api_meta.request_id);
    });

    it('accepts paths with and without the trailing slash', async () => {
      const withSlash = await t.inject({ method: 'GET', url: `/api/tenants/${agency.tenantId}/`, token: agency.token });
      const without = await t.inject({ method: 'GET', url: `/api/tenants/${agency.tenantId}`, token: agency.token });
      expect(withSlash.statusCode).toBe(200);
      expect(without.statusCode).toBe(200);
      expect(without.json().id).toBe(agency.tenantId);
    });

    it('answers 405 with Allow for a known path and 404 in the error format for an unknown one', async () => {
      const wrongMethod = await t.inject({ method: 'PUT', url: '/api/tenants/', token: agency.token });
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe('GET, POST');
      expect(wrongMethod.json().error.code).toBe('method_not_allowed');
      const unknown = await t.inject({ method: 'GET', url: '/api/nothing-here/', token: agency.token });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: { type: 'not_found_error', code: 'route_not_found' } });
      expect(unknown.json().api_meta.request_id).toBe(unknown.headers['x-request-id']);
    });

    it('paginates with next and previous links', async () => {
      for (let i = 0; i < 4; i++)
        await t.inject({
          method: 'POST',
          url: '/api/tenants/',
          token: agency.token,
          payload: { name: `Page client ${i}` },
        });
      const first = (await t.inject({ method: 'GET', url: '/api/tenants/?page_size=2', token: agency.token })).json();
      expect(first).toMatchObject({ count: 5, page: 1, page_size: 2, total_pages: 3, previous: null });
      expect(new URL(first.next).search).toBe('?page_size=2&page=2');
      const last = (
        await t.inject({ method: 'GET', url: '/api/tenants/?page=3&page_size=2', token: agency.token })
      ).json();
      expect(last.results).toHaveLength(1);
      expect(last.next).toBeNull();
      expect(new URL(last.previous).searchParams.get('page')).toBe('2');
      const beyond = (
        await t.inject({ method: 'GET', url: '/api/tenants/?page=50&page_size=2', token: agency.token })
      ).json();
      expect(beyond).toMatchObject({ count: 5, results: [], next: null });
      const ids = [
        ...first.results,
        ...(
          await t.inject({ method: 'GET', url: first.next.replace(/^https?:\/\/[^/]+/, ''), token: agency.token })
        ).json().results,
      ].map((r: { id: string }) => r.id);
      expect(new Set(ids).size).toBe(4);
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['page=99999999999999999999', 'page'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page_size=1e3', 'page_size'],
      ['status=deleted', 'status'],
    ])('rejects the query %s with 400 naming the parameter', async (query, param) => {
      const response = await t.inject({ method: 'GET', url: `/api/tenants/?${query}`, token: agency.token });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param });
    });
  });

  describe('authentication', () => {
    it.each([
      ['no header', undefined, 'missing_credentials'],
      ['a non-bearer scheme', 'Basic dXNlcjpwYXNz', 'invalid_authorization_header'],
      ['bearer without token', 'Bearer', 'invalid_authorization_header'],
      ['garbage', 'Bearer hello', 'invalid_api_key'],
      ['a truncated token', 'TRUNCATE', 'invalid_api_key'],
      ['a bad checksum', 'BADSUM', 'invalid_api_key'],
      ['an unknown well-formed token', 'UNKNOWN', 'invalid_api_key'],
      ['two tokens', 'TWO', 'invalid_authorization_header'],
    ])('refuses %s with 401, WWW-Authenticate and the error body', async (_name, header, code) => {
      const real = agency.token;
      const value =
        header === 'TRUNCATE'
          ? `Bearer ${real.slice(0, 20)}`
          : header === 'BADSUM'
            ? `Bearer ${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`
            : header === 'UNKNOWN'
              ? `Bearer ${generateApiToken()}`
              : header === 'TWO'
                ? `Bearer ${real} ${real}`
                : header;
      const response = await t.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: value === undefined ? {} : { authorization: value },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.json().error).toMatchObject({ type: 'authentication_error', code });
      expect(response.headers['ratelimit-policy']).toMatch(/^"ip";q=\d+;w=60$/);
    });

    it('accepts the scheme in any case with extra spaces and a lower-case header name', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { authorization: `  bEaReR    ${agency.token}  ` },
      });
      expect(response.statusCode).toBe(200);
    });

    it('refuses a malformed token without touching the database', async () => {
      const isolated = await startTestApp(backend);
      await isolated.database.close();
      const response = await isolated.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { authorization: `Bearer ${agency.token.slice(0, -1)}${agency.token.endsWith('x') ? 'y' : 'x'}` },
      });
      expect(response.statusCode).toBe(401);
      const unknown = await isolated.inject({ method: 'GET', url: '/api/tenants/', token: generateApiToken() });
      expect(unknown.statusCode).toBe(503);
      expect(unknown.headers['retry-after']).toMatch(/^\d+$/);
      expect(unknown.json().error).toEqual({
        type: 'api_error',
        code: 'service_unavailable',
        message: expect.any(String),
      });
      expect(JSON.stringify(unknown.json())).not.toMatch(/at .*\.ts|stack/i);
      await isolated.app.close();
      await isolated.testDatabase.drop();
    });
  });

  describe('validation errors a person can act on', () => {
    it('names the first problem and lists every wrong field in details.errors, in plain words', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/setup/',
        payload: { organisation: '', plan: 'agency', name: 'x'.repeat(300), email: 'not-an-email', password: 'short' },
      });
      expect(response.statusCode).toBe(400);
      const error = response.json().error;
      expect(error.code).toBe('invalid_parameter');
      expect(error.message).not.toMatch(/must NOT|must match/);
      expect(
        Object.fromEntries(
          error.details.errors.map((issue: { param: string; message: string }) => [issue.param, issue.message]),
        ),
      ).toMatchObject({
        organisation: "The field 'organisation' must not be empty.",
        email: "The field 'email' must be an email address.",
        password: "The field 'password' must be at least 12 characters long.",
      });
    });
  });

  describe('bad input never writes', () => {
    async function tenantCount() {
      return (await t.inject({ method: 'GET', url: '/api/tenants/?status=all', token: agency.token })).json()
        .count as number;
    }

    it.each([
      ['malformed JSON', { 'content-type': 'application/json' }, '{"name": "x"', 400, 'invalid_json'],
      ['an empty JSON body', { 'content-type': 'application/json' }, '', 400, 'empty_body'],
      ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'invalid_parameter'],
      ['text/plain', { 'content-type': 'text/plain' }, '{"name": "x"}', 415, 'unsupported_media_type'],
      ['form data', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x', 415, 'unsupported_media_type'],
      [
        'an unknown field',
        { 'content-type': 'application/json' },
        '{"name": "x", "owner": "me"}',
        400,
        'unknown_parameter',
      ],
      ['a wrong type', { 'content-type': 'application/json' }, '{"name": 12}', 400, 'invalid_parameter'],
      [
        'a string for a boolean-free schema',
        { 'content-type': 'application/json' },
        '{"name": "x", "plan": "agency"}',
        400,
        'invalid_parameter',
      ],
      [
        'a body over 1 MB',
        { 'content-type': 'application/json' },
        JSON.stringify({ name: 'x'.repeat(1_100_000) }),
        413,
        'body_too_large',
      ],
      [
        'JSON with a charset parameter in odd case',
        { 'Content-Type': 'Application/JSON; Charset=UTF-8' },
        '{"name": 5}',
        400,
        'invalid_parameter',
      ],
    ])('%s gets a clear 4xx', async (_name, headers, payload, status, code) => {
      const before = await tenantCount();
      const response = await t.inject({ method: 'POST', url: '/api/tenants/', token: agency.token, headers, payload });
      expect(response.statusCode).toBe(status);
      expect(response.json().error.code).toBe(code);
      expect(response.json().api_meta.request_id).toBe(response.headers['x-request-id']);
      expect(await tenantCount()).toBe(before);
    });
  });
});
