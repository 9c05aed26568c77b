import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every code of every catalogue (src/http/errors.ts and src/modules/<feature>/errors.ts). */
async function catalogueCodes(): Promise<Set<string>> {
  const files = [
    'src/http/errors.ts',
    ...readdirSync(path.join(ROOT, 'src/modules')).map((feature) => `src/modules/${feature}/errors.ts`),
  ];
  const codes = new Set<string>();
  for (const file of files) {
    const module = (await import(path.join(ROOT, file)).catch(() => ({}))) as Record<string, unknown>;
    for (const value of Object.values(module))
      if (typeof value === 'object' && value !== null)
        for (const entry of Object.values(value))
          if (typeof entry?.code === 'string' && typeof entry?.status === 'number') codes.add(entry.code);
  }
  return codes;
}

interface Operation {
  operationId: string;
  responses: Record<string, { content?: { 'application/json'?: { schema?: any } } }>;
}

describe('OpenAPI error codes per status', () => {
  let t: TestApp;
  let operations: Map<string, Operation>;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    operations = new Map();
    for (const item of Object.values<Record<string, Operation>>(document.paths))
      for (const operation of Object.values(item)) operations.set(operation.operationId, operation);
  });
  afterAll(() => t?.close());

  const codes = (operationId: string, status: number): string[] | undefined =>
    operations.get(operationId)?.responses[String(status)]?.content?.['application/json']?.schema?.properties?.error
      ?.properties?.code?.enum;

  it('lists, for every error status of every operation, its codes as an enum of catalogue codes', async () => {
    const known = await catalogueCodes();
    expect(operations.size).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const [operationId, operation] of operations)
      for (const status of Object.keys(operation.responses).filter((status) => Number(status) >= 400)) {
        const schema = operation.responses[status].content?.['application/json']?.schema;
        if (!schema?.properties?.error) continue; // not the error body (the readiness probe's 503)
        const listed = codes(operationId, Number(status));
        if (!listed?.length) problems.push(`${operationId} ${status}: no enum on error.code`);
        for (const code of listed ?? [])
          if (!known.has(code)) problems.push(`${operationId} ${status}: ${code} is in no catalogue`);
      }
    expect(problems).toEqual([]);
  });

  it("documents a credentialed operation's guard codes: 401 authentication, 404 Tagport-Tenant, 429 rate limit", () => {
    expect(codes('getContainer', 404)).toEqual(['resource_missing']);
    expect(codes('listContainers', 404)).toEqual(['resource_missing']);
    expect(codes('getContainer', 401)).toEqual(
      expect.arrayContaining([
        'missing_credentials',
        'invalid_authorization_header',
        'invalid_api_key',
        'api_key_revoked',
        'api_key_expired',
        'tenant_archived',
      ]),
    );
    expect(codes('getContainer', 429)).toEqual(['rate_limited']);
    expect(codes('getContainer', 400)).toEqual(
      expect.arrayContaining(['invalid_parameter', 'unknown_parameter', 'invalid_character']),
    );
    expect(codes('getContainer', 503)).toEqual(['service_unavailable']);
  });

  it("adds each operation's own codes to the status they are answered with", () => {
    expect(codes('createContainer', 402)).toEqual(['plan_limit_reached']);
    expect(codes('createContainer', 400)).toEqual(
      expect.arrayContaining(['invalid_config', 'https_required', 'upstream_not_allowed', 'invalid_parameter']),
    );
    expect(codes('stopContainer', 409)).toEqual(['invalid_transition']);
    expect(codes('updateContainer', 409)).toEqual(['container_deleted']);
    expect(codes('getContainerUsage', 400)).toEqual(expect.arrayContaining(['period_reversed', 'period_too_long']));
    expect(codes('scanPage', 429)).toEqual(['rate_limited', 'scan_quota_exceeded']);
    expect(codes('scanPage', 422)).toEqual(['target_unreachable']);
    expect(codes('createMonitor', 400)).toEqual(expect.arrayContaining(['interval_too_short', 'resource_missing']));
    expect(codes('login', 429)).toEqual(['rate_limited', 'too_many_login_attempts']);
  });

  it('adds 403 insufficient_role where the role policy applies and csrf_token_invalid on unsafe methods', () => {
    expect(codes('createContainer', 403)).toEqual(['csrf_token_invalid', 'insufficient_role']);
    expect(codes('updateTenant', 403)).toEqual(
      expect.arrayContaining(['insufficient_role', 'plan_change_not_allowed', 'csrf_token_invalid']),
    );
    expect(codes('scanPage', 403)).toEqual(['csrf_token_invalid']);
    expect(codes('getContainer', 403)).toBeUndefined();
  });

  it('documents no 401 for a public operation that answers none, and keeps responses that are not errors', () => {
    expect(operations.get('readiness')?.responses['503']).toBeDefined();
    expect(codes('publicScanPage', 401)).toBeUndefined();
    expect(codes('publicScanPage', 429)).toEqual(['public_scan_limit', 'rate_limited']);
    expect(codes('login', 401)).toEqual(['invalid_login', 'missing_credentials', 'no_active_tenant']);
  });
});
