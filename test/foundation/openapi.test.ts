import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('OpenAPI document and console', () => {
  let t: TestApp;
  let document: any;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    const response = await t.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json();
  });
  afterAll(() => t?.close());

  it('passes the Redocly recommended ruleset without errors', async () => {
    // The spec's paths end with a slash (`{base_url}tenants/`, `/api/v1/tracking-checker/scan/`), so that one style rule is off.
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-path-trailing-slash': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`)).toEqual(
      [],
    );
    // Every example (the error examples built from the catalogues included) conforms to its schema, and no
    // description has raw HTML.
    const warnings = problems.filter((problem) =>
      ['no-invalid-media-type-examples', 'no-unsafe-markdown', 'no-unused-components'].includes(problem.ruleId),
    );
    expect(
      warnings.map((problem) => `${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('is OpenAPI 3.1 with the bearer scheme and documents every API route with its errors', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of ['/api/tenants/', '/api/tenants/{id}/', '/api/api-keys/', '/api/api-keys/{id}/'])
      expect(document.paths[path], path).toBeDefined();
    const listTenants = document.paths['/api/tenants/'].get;
    expect(Object.keys(listTenants.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '500']));
    expect(listTenants.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'page_size']),
    );
    const createKey = document.paths['/api/api-keys/'].post;
    expect(createKey.responses['201'].content['application/json'].schema.allOf).toEqual([
      { $ref: '#/components/schemas/CreatedApiKey' },
    ]);
    expect(document.components.schemas.CreatedApiKey.properties.token).toBeDefined();
    expect(createKey.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(createKey.requestBody.content['application/json'].example).toMatchObject({ name: 'CI deploys' });
  });

  it('serves the same document as YAML', async () => {
    const response = await t.inject({ method: 'GET', url: '/api/openapi.yaml' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('yaml');
    expect(response.body).toContain('openapi: 3.1.0');
    expect(response.body).toContain('/api/tenants/');
  });

  it('serves the Scalar console and its script locally, without credentials', async () => {
    const page = await t.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('/api/openapi.json');
    const scripts = [...page.body.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith('http'), `script ${src} must be served locally`).toBe(false);
      const script = await t.inject({ method: 'GET', url: new URL(src, 'http://x/api/docs/').pathname });
      expect(script.statusCode, src).toBe(200);
      expect(script.body.length).toBeGreaterThan(100_000);
    }
  });
});
