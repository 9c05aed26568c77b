import { describe, expect, it } from 'vitest';
import { matchCode, matchUrl, trackerForCookie } from '../../../src/scanner/signatures.js';

// Issue 31, mechanisms 3 and 6: the pure rules behind test/scanner/tag-manager-config.test.ts.

const matches = (url: string) => matchUrl(url).map((match) => [match.key, match.role, match.ids]);

describe('tag managers other than GTM (mechanism 3)', () => {
  it('recognises their container scripts, with the container, site or space id', () => {
    expect(matches('https://cdn.matomo.cloud/acme.matomo.cloud/container_Ab12Cd34.js')).toEqual([
      ['matomo_tag_manager', 'loader', ['Ab12Cd34']],
    ]);
    expect(matches('https://stats.acme.test/js/container_Zz99Yy88.js')).toEqual([
      ['matomo_tag_manager', 'loader', ['Zz99Yy88']],
    ]);
    expect(matches('https://cdn.tagcommander.com/1234/tc_AcmeShoes_3.js')).toEqual([
      ['tagcommander', 'loader', ['1234']],
    ]);
    expect(matches('https://nexus.ensighten.com/acmeretail/prod/Bootstrap.js')).toEqual([
      ['ensighten', 'loader', ['acmeretail/prod']],
    ]);
  });

  it('leaves look-alikes alone: a site file named container_*.js outside /js/, another host', () => {
    expect(matches('https://www.acme.test/assets/container_Ab12Cd34.js')).toEqual([]);
    expect(matches('https://cdn.tagcommander.com.acme.test/1234/tc_Acme_3.js')).toEqual([]);
    expect(matches('https://nexus.ensighten.community/acmeretail/prod/Bootstrap.js')).toEqual([]);
  });

  it('reads their snippets, cookies and globals', () => {
    const snippet =
      "var _mtm = window._mtm = window._mtm || []; g.src='https://mtm.acme.test/js/container_Ab12Cd34.js';";
    expect(matchCode(snippet).map((match) => [match.key, match.id])).toEqual([['matomo_tag_manager', 'Ab12Cd34']]);
    expect(trackerForCookie('TCPID', () => false)).toBe('tagcommander');
    expect(trackerForCookie('ENSIGHTEN_PRIVACY_Analytics', () => false)).toBe('ensighten');
    expect(trackerForCookie('TCPIDX', () => false)).toBeNull();
  });
});

describe('GA4 hits on a renamed path (mechanism 6)', () => {
  it('are GA4 hits when they carry the whole GA4 parameter set on a non-Google host', () => {
    expect(
      matches('https://px.shop.test/dx/collect?v=2&tid=G-SIDECAR01&gtm=45je0&_p=1&cid=555.666&en=page_view'),
    ).toEqual([['google_analytics_4', 'hit', ['G-SIDECAR01']]]);
  });

  it('are not GA4 without an event and a client id, nor with another tag id', () => {
    expect(matches('https://px.shop.test/dx/collect?v=2&tid=G-SIDECAR01')).toEqual([]);
    expect(matches('https://px.shop.test/dx/collect?v=2&tid=AW-123456789&cid=1.2&en=x')).toEqual([]);
  });
});
