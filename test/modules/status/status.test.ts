import fs from 'node:fs';
import { renderChangelog } from '../../../src/modules/status/changelog.js';
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
        observationCapMs: 10_000,
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
      expect(page.body).toContain('<h1 id="changelog"><a class="anchor" href="#changelog">Changelog</a></h1>');
      expect(page.body).toContain('tracking-checker');
      const openapi = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      expect(openapi.info.description).toContain('(/status)');
      expect(openapi.info.description).toContain('(/changelog)');
    });

    it('gives every release and section an anchor, and serves the releases as an Atom feed', async () => {
      const page = await t.inject({ method: 'GET', url: '/changelog' });
      expect(page.body).toContain('<h2 id="0-2-0">');
      expect(page.body).toContain('<h3 id="0-2-0-fixed">');
      expect(page.body).toContain('href="/changelog.atom"');
      const sample = renderChangelog('## 0.3.0 — 2027-01-10\n\n### Deprecated\n- `GET /api/x/`\n');
      expect(sample).toContain(
        '<h3 id="0-3-0-deprecated"><a class="anchor" href="#0-3-0-deprecated">Deprecated</a></h3>',
      );

      const feed = await t.inject({ method: 'GET', url: '/changelog.atom', headers: { host: 'tagport.test' } });
      expect(feed.statusCode).toBe(200);
      expect(feed.headers['content-type']).toContain('application/atom+xml');
      expect(feed.body).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
      const entries = [...feed.body.matchAll(/<entry>[\s\S]*?<\/entry>/g)].map((match) => match[0]);
      expect(entries.length).toBeGreaterThanOrEqual(2);
      // The newest release of CHANGELOG.md comes first, linked to its anchor and dated by its heading.
      const [, version, date] = /^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$/m.exec(
        fs.readFileSync('CHANGELOG.md', 'utf8'),
      )!;
      const anchor = version.replaceAll('.', '-');
      expect(entries[0]).toContain(
        `<link rel="alternate" type="text/html" href="http://tagport.test/changelog#${anchor}"/>`,
      );
      expect(entries[0]).toContain(`<updated>${date}T00:00:00Z</updated>`);
      expect(entries[0]).toContain(`&lt;h3 id=&quot;${anchor}-added&quot;`);
    });
  });
});
