import { describe, expect, it } from 'vitest';
import { parseGtmContainer } from '../../../src/scanner/detect/gtm-container.js';
import { gtmContainerJs } from '../../fixtures/scanner/gtm-container.js';

// Issue 31, "read tag-manager containers": the container's tags with their vendors, ids and triggers.

describe('parseGtmContainer', () => {
  it('lists each tag with its vendor, ids and triggers in plain terms; listeners are not tags', () => {
    const container = parseGtmContainer(gtmContainerJs('GTM-CONF001'));
    expect(container?.version).toBe('42');
    expect(container?.tags.map((tag) => [tag.type, tag.key, tag.ids, tag.triggers])).toEqual([
      ['__googtag', 'google_analytics_4', ['G-CONF1234'], ['page view']],
      ['__gaawe', 'google_analytics_4', ['G-CONF1234'], ['custom event purchase']],
      ['__awct', 'google_ads', ['AW-918273645/AbC-dEfGh'], ['custom event purchase', 'consent: ad_storage']],
      ['__html', 'meta_pixel', ['246813579024681'], ['scroll 50 %']],
      ['__img', 'linkedin_insight', ['9081726'], ['link click']],
      ['__cvt_12345678_9', null, [], ['page view', 'timer']],
    ]);
  });

  it('a scroll trigger without its own threshold names the listener’s marks', () => {
    const script = gtmContainerJs('GTM-CONF001').replace(
      '{"function":"_eq","arg0":["macro",1],"arg1":"50"}',
      '{"function":"_cn","arg0":["macro",1],"arg1":"x"}',
    );
    expect(parseGtmContainer(script)?.tags.find((tag) => tag.type === '__html')?.triggers).toEqual([
      'scroll 25 / 50 / 90 %',
    ]);
  });

  it('a script it cannot read is null, never an error', () => {
    expect(parseGtmContainer('')).toBeNull();
    expect(parseGtmContainer('var data = {"resource": {"tags": [ {"function": ')).toBeNull();
    expect(parseGtmContainer('var data = {"resource": {"tags": "x"}};')).toBeNull();
    expect(
      parseGtmContainer('var data = {"resource": {"tags": [null, 3, {"function": 7}], "rules": [[["add", "a"]], 5]}};')
        ?.tags,
    ).toEqual([]);
  });
});
