import { describe, expect, it } from 'vitest';
import { launchTags } from '../../../src/scanner/detect/adobe-launch.js';
import type { ReadableLaunchContainer } from '../../../src/scanner/launch-container.js';

const container = (rules: ReadableLaunchContainer['rules']): ReadableLaunchContainer => ({
  readable: true,
  propertyId: 'PR1',
  propertyName: 'Shop',
  buildDate: null,
  stage: 'production',
  extensions: { 'adobe-analytics': { displayName: 'Adobe Analytics', accounts: ['shopprod'] } },
  rules,
});
const event = (modulePath: string, settings: Record<string, string | number | boolean> = {}) => ({
  modulePath,
  settings,
});

describe('Adobe Launch rules as configured tags', () => {
  it('names each rule event in plain terms, with its identifier, type or seconds', () => {
    const tags = launchTags(
      container([
        {
          name: 'Everything',
          events: [
            event('core/src/lib/events/customEvent.js', { type: 'cart:add' }),
            event('core/src/lib/events/timeOnPage.js', { timeOnPage: 30 }),
            event('core/src/lib/events/enterViewport.js', { elementSelector: '#footer' }),
            event('core/src/lib/events/directCall.js', { identifier: 'checkout' }),
            event('core/src/lib/events/directCall.js'),
            event('acme-extension/src/lib/events/scrollDepth.js'),
          ],
          actions: [event('adobe-analytics/src/lib/actions/sendBeacon.js', { type: 'link' })],
        },
      ]),
    );
    expect(tags).toEqual([
      {
        type: 'adobe-analytics/src/lib/actions/sendBeacon.js',
        key: 'tpw:Adobe Experience Cloud',
        vendor: 'Adobe Analytics',
        ids: ['shopprod'],
        triggers: [
          'custom event cart:add',
          'time on page 30 s',
          'element in view',
          'direct call checkout',
          'direct call',
          'event acme-extension/src/lib/events/scrollDepth.js',
        ],
      },
    ]);
  });

  it('reads custom code with the code rules, skips Analytics machinery, and names unknown extensions', () => {
    const tags = launchTags(
      container([
        {
          name: 'Page view',
          events: [event('core/src/lib/events/libraryLoaded.js')],
          actions: [
            event('adobe-analytics/src/lib/actions/setVariables.js'),
            event('adobe-analytics/src/lib/actions/clearVariables.js'),
            event('core/src/lib/actions/customCode.js', {
              source: "<script async src='https://www.googletagmanager.com/gtag/js?id=G-LAUNCH0001'></script>",
              language: 'html',
            }),
            event('core/src/lib/actions/customCode.js', { source: 'console.log(1)', isExternal: false }),
            event('acme-extension/src/lib/actions/send.js'),
          ],
        },
      ]),
    );
    expect(tags.map((tag) => [tag.key, tag.vendor, tag.ids, tag.triggers])).toEqual([
      ['google_analytics_4', 'Google Analytics 4', ['G-LAUNCH0001'], ['library loaded']],
      [null, 'custom code', [], ['library loaded']],
      [null, 'acme-extension', [], ['library loaded']],
    ]);
  });
});
