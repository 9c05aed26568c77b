import { describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/scanner/index.js';
import { scanFixture, useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 31, mechanisms 3 and 6, end to end in Chromium on the loopback fixture server (training pages of pages-i31.ts).

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

const scan = (host: string) => scanFixture(setup, host);

const byKey = (result: ScanResult) => Object.fromEntries(result.trackers.map((tracker) => [tracker.key, tracker]));

describe('tag managers other than GTM are tag managers (mechanism 3)', () => {
  it.each([
    ['mtm.example.test', 'matomo_tag_manager', ['Ab12Cd34']],
    ['tagco.example.test', 'tagcommander', ['1234']],
    ['ensighten.example.test', 'ensighten', ['acmeretail/prod']],
  ])('%s: %s with its id', async (host, key, ids) => {
    const tracker = byKey(await scan(host))[key];
    expect(tracker).toMatchObject({ category: 'tag_manager', ids });
  });
});

describe('a server-side container behind a renamed loader (mechanism 6)', () => {
  it('lists the first-party host that received the GA4 hits as the endpoint', async () => {
    const result = await scan('www.sidecar-shop.test');
    expect(result.server_side_tagging).toMatchObject({
      detected: true,
      endpoints: ['https://px.sidecar-shop.test'],
    });
    expect(byKey(result).google_analytics_4).toMatchObject({
      ids: ['G-SIDECAR01'],
      endpoints: ['https://px.sidecar-shop.test/dx/collect'],
    });
  });
});

describe('what a GTM container is configured to fire, beside what fired', () => {
  it('lists each configured tag with its trigger, and whether the scan saw it fire', async () => {
    const result = await scan('gtm-config.example.test');
    expect(result.tag_manager_configs).toHaveLength(1);
    const [config] = result.tag_manager_configs ?? [];
    expect(config).toMatchObject({
      manager: 'google_tag_manager',
      container_id: 'GTM-CONF001',
      readable: true,
      version: '42',
    });
    expect(config.tags.map((tag) => [tag.key, tag.ids, tag.triggers, tag.fired])).toEqual([
      ['google_analytics_4', ['G-CONF1234'], ['page view'], true],
      ['google_analytics_4', ['G-CONF1234'], ['custom event purchase'], true],
      ['google_ads', ['AW-918273645/AbC-dEfGh'], ['custom event purchase', 'consent: ad_storage'], false],
      ['meta_pixel', ['246813579024681'], ['scroll 50 %'], false],
      ['linkedin_insight', ['9081726'], ['link click'], false],
      [null, [], ['page view', 'timer'], false],
    ]);
  });

  it('a container it cannot read is listed as not readable, without a warning', async () => {
    const result = await scan('gtm-broken.example.test');
    expect(result.tag_manager_configs).toEqual([
      expect.objectContaining({ container_id: 'GTM-BROKEN1', readable: false, version: null, tags: [] }),
    ]);
    expect(result.warnings.map((warning) => warning.code)).not.toContain('browser_failed');
  });
});
