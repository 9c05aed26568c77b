import { describe, expect, it } from 'vitest';
import { LAUNCH_IDS } from '../fixtures/scanner/pages-launch.js';
import { MATOMO_TM_IDS } from '../fixtures/scanner/pages-matomo-tm.js';
import { scanFixture, useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 31: tag managers other than GTM read for what they are configured to fire, beside what fired, in Chromium on
// the loopback fixture server: an Adobe Experience Platform tags (Launch) property (pages-launch.ts) and a Matomo Tag
// Manager container (pages-matomo-tm.ts). GTM's own are in tag-managers.test.ts.

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

describe('what an Adobe Launch property is configured to fire, beside what fired', () => {
  it('lists each rule action as a tag with the rule’s events as triggers, and whether it fired', async () => {
    const result = await scanFixture(setup, 'launch.example.test');
    const launch = result.tag_manager_configs?.filter((config) => config.manager === 'adobe_launch');
    expect(launch).toEqual([
      {
        manager: 'adobe_launch',
        container_id: LAUNCH_IDS.property,
        url: expect.stringMatching(/^https:\/\/assets\.adobedtm\.com\/.*\/launch-ENfixture0123456789\.min\.js$/),
        readable: true,
        version: '2026-10-01T09:00:00Z',
        tags: [
          {
            type: 'adobe-analytics/src/lib/actions/sendBeacon.js',
            key: 'tpw:Adobe Experience Cloud',
            vendor: 'Adobe Analytics',
            ids: [LAUNCH_IDS.reportSuite],
            triggers: ['page bottom'],
            fired: true,
          },
          {
            type: 'core/src/lib/actions/customCode.js',
            key: 'meta_pixel',
            vendor: 'Meta Pixel',
            ids: [LAUNCH_IDS.pixel],
            triggers: ['click'],
            fired: false,
          },
          {
            type: 'core/src/lib/actions/customCode.js',
            key: null,
            vendor: 'custom code',
            ids: [],
            triggers: ['direct call purchase'],
            fired: false,
          },
        ],
      },
    ]);
    // The Meta custom code never ran (nobody clicked): the pixel is not a tracker of the page.
    expect(result.trackers.map((tracker) => tracker.key)).not.toContain('meta_pixel');
  });

  it('an old runtime without _container is listed as not readable', async () => {
    const result = await scanFixture(setup, 'launch-old.example.test');
    expect(result.tag_manager_configs).toEqual([
      expect.objectContaining({
        manager: 'adobe_launch',
        container_id: null,
        readable: false,
        version: null,
        tags: [],
      }),
    ]);
  });

  it('a page without Launch has no Launch entry', async () => {
    const result = await scanFixture(setup, 'gtm-config.example.test');
    expect(result.tag_manager_configs?.map((config) => config.manager)).toEqual(['google_tag_manager']);
  });
});

describe('what a Matomo Tag Manager container is configured to fire, beside what fired', () => {
  it('lists each tag with the triggers that fire it, and whether it fired', async () => {
    const result = await scanFixture(setup, 'mtm-config.example.test');
    expect(result.tag_manager_configs).toEqual([
      {
        manager: 'matomo_tag_manager',
        container_id: MATOMO_TM_IDS.container,
        url: expect.stringMatching(new RegExp(`/js/container_${MATOMO_TM_IDS.container}\\.js$`)),
        readable: true,
        version: 'v7',
        tags: [
          {
            type: 'Matomo',
            key: 'matomo',
            vendor: 'Matomo',
            ids: [MATOMO_TM_IDS.site],
            triggers: ['page view'],
            fired: true,
          },
          {
            type: 'CustomHtml',
            key: 'meta_pixel',
            vendor: 'Meta Pixel',
            ids: [MATOMO_TM_IDS.pixel],
            triggers: ['form submission'],
            fired: false,
          },
          {
            type: 'CustomImage',
            key: 'linkedin_insight',
            vendor: 'LinkedIn Insight Tag',
            ids: [MATOMO_TM_IDS.linkedin],
            triggers: ['custom event purchase', 'scroll 75 %'],
            fired: false,
          },
        ],
      },
    ]);
  });

  it('a container script without a configuration it can read is listed as not readable', async () => {
    const result = await scanFixture(setup, 'mtm.example.test');
    expect(result.tag_manager_configs).toEqual([
      expect.objectContaining({ manager: 'matomo_tag_manager', container_id: 'Ab12Cd34', readable: false, tags: [] }),
    ]);
  });
});
