import path from 'node:path';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

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

  it('passes the Redocly recommended ruleset of redocly.yaml with 0 errors and 0 warnings', async () => {
    // redocly.yaml turns off one rule, the trailing-slash one, which the spec's paths require (its comment says why).
    const config = await loadConfig({ configPath: path.join(ROOT, 'redocly.yaml') });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    // The error examples built from the catalogues are among the examples checked against their schemas.
    expect(
      problems.map(
        (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`,
      ),
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
