import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/processes.js';

describe('public status page and changelog', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', {
      statusCheckMs: 50,
      scanner: {
        chromiumPath: '/nonexistent/chromium',
        hostResolverRules: null,
        concurrency: 1,
        scanTimeoutMs: 5000,
        syncWaitMs: 10_000,
      },
    });
  });
  afterAll(() => t?.close());

  describe('getPlatformStatus · GET /api/status.json', () => {
    it('detects a broken component from its own health checks, opens an incident within seconds and shows it without credentials', async () => {
      const started = Date.now();
      await waitFor(
        async () => (await t.inject({ method: 'GET', url: '/api/status.json' })).json().open_incidents.length > 0,
        5000,
        'a platform incident',
      );
      expect(Date.now() - started).toBeLessThan(5000);
      const document = (await t.inject({ method: 'GET', url: '/api/status.json' })).json();
      expect(document.status).toBe('outage');
      expect(document.components.map((component: { name: string }) => component.name)).toEqual([
        'API',
        'Database',
        'Scanner',
        'Monitoring worker',
        'Gateway',
      ]);
      expect(document.components.find((component: { name: string }) => component.name === 'Database').status).toBe(
        'operational',
      );
      expect(
        document.components.find((component: { name: string }) => component.name === 'Monitoring worker').status,
      ).toBe('operational');
      expect(document.open_incidents[0]).toMatchObject({ component: 'Scanner', status: 'open' });
      expect(document.open_incidents[0].title).toBe('Scanner: The browser used for scans is not installed.');

      const page = await t.inject({ method: 'GET', url: '/status' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Outage');
      expect(page.body).toContain('The browser used for scans is not installed.');
    });

    it('never shows the Chromium path or an error text on the public status', async () => {
      const document = await t.inject({ method: 'GET', url: '/api/status.json' });
      const page = await t.inject({ method: 'GET', url: '/status' });
      for (const body of [document.body, page.body]) expect(body).not.toContain('/nonexistent');
    });

    it('resolves the incident when the component recovers', async () => {
      let healthy = false;
      t.app.services.status.register('Gateway', async () =>
        healthy ? { status: 'operational', detail: 'ok' } : { status: 'outage', detail: 'gateway down' },
      );
      await waitFor(
        async () =>
          (await t.inject({ method: 'GET', url: '/api/status.json' }))
            .json()
            .open_incidents.some((incident: { component: string }) => incident.component === 'Gateway'),
        5000,
        'gateway incident',
      );
      healthy = true;
      await waitFor(
        async () =>
          (await t.inject({ method: 'GET', url: '/api/status.json' }))
            .json()
            .recent_incidents.some((incident: { component: string }) => incident.component === 'Gateway'),
        5000,
        'gateway recovery',
      );
    });
  });

  describe('the changelog page', () => {
    it('renders CHANGELOG.md at /changelog and links both from the API console description', async () => {
      const page = await t.inject({ method: 'GET', url: '/changelog' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<h1>Changelog</h1>');
      expect(page.body).toContain('tracking-checker');
      const openapi = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      expect(openapi.info.description).toContain('(/status)');
      expect(openapi.info.description).toContain('(/changelog)');
    });
  });
});
