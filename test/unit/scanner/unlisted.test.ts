import { describe, expect, it } from 'vitest';
import {
  emptyRuntimeFindings,
  type RuntimeCookie,
  type RuntimeFindings,
  type RuntimeRequest,
} from '../../../src/scanner/browser.js';
import { detect } from '../../../src/scanner/detect.js';

// Issue 31, mechanisms 1 and 2: how the signs of an unnamed third party are weighed (detect/unlisted.ts).

const SITE = 'https://www.shop.test/';

const request = (url: string, extra: Partial<RuntimeRequest> = {}): RuntimeRequest => ({
  url,
  method: 'GET',
  resourceType: 'script',
  status: 200,
  failure: null,
  frameUrl: SITE,
  atMs: 100,
  postData: null,
  ...extra,
});

const cookie = (name: string, domain: string, script: string | null = null): RuntimeCookie => ({
  name,
  domain,
  expires: -1,
  httpOnly: false,
  setBy: script ? 'script' : 'http',
  script,
});

const unlisted = (requests: RuntimeRequest[], cookies: RuntimeCookie[] = []) => {
  const runtime: RuntimeFindings = { ...emptyRuntimeFindings(SITE), requests, cookies };
  return detect(SITE, null, runtime).unlistedTrackers?.map((found) => [found.domain, found.confidence, found.ids]);
};

describe('unlisted trackers (detect/unlisted.ts)', () => {
  it('a cookie a third party sets in its response counts beside its script; a bot-management cookie does not', () => {
    expect(
      unlisted(
        [request('https://cdn.vendor-a.test/a.js'), request('https://cdn.edge-b.test/lib.js')],
        [cookie('va_uid', 'cdn.vendor-a.test'), cookie('__cf_bm', 'cdn.edge-b.test')],
      ),
    ).toEqual([['vendor-a.test', 'low', []]]);
  });

  it('needs a script or a second sign: one beacon, one pixel id or one cookie alone is not enough', () => {
    expect(
      unlisted([
        request('https://api.forms-c.test/submit', { method: 'POST', postData: 'a=1', resourceType: 'fetch' }),
      ]),
    ).toEqual([]);
    expect(unlisted([request('https://px.vendor-d.test/p.gif?site_id=991', { resourceType: 'image' })])).toEqual([]);
    expect(
      unlisted([
        request('https://px.vendor-d.test/p.gif?site_id=991', { resourceType: 'image' }),
        request('https://px.vendor-d.test/e', { method: 'POST', postData: '{"site_id":"991"}', resourceType: 'fetch' }),
      ]),
    ).toEqual([['vendor-d.test', 'medium', ['991']]]);
  });

  it('a first-party host needs three points; a named tracker’s first-party endpoint is never listed', () => {
    const posted = { method: 'POST', postData: '{"projectId":"p1"}', resourceType: 'fetch' };
    const recorder = [request('https://t.shop.test/r.js'), request('https://t.shop.test/i', posted)];
    const cookies = [cookie('_t_s', 'shop.test', 'https://t.shop.test/r.js')];
    expect(unlisted(recorder)).toEqual([]);
    expect(unlisted(recorder, cookies)).toEqual([['t.shop.test', 'high', ['p1']]]);
    const tagging = [
      request('https://sgtm.shop.test/gtag/js?id=G-ABC123'),
      request('https://sgtm.shop.test/g/collect?v=2&tid=G-ABC123&cid=1.2&en=page_view', posted),
    ];
    expect(unlisted(tagging, [cookie('_t_s', 'shop.test', 'https://sgtm.shop.test/gtag/js?id=G-ABC123')])).toEqual([]);
  });

  it('requests that got no response, first-party hosts and the domains of named trackers are left out', () => {
    const posted = { method: 'POST', postData: '{"projectId":"p1"}', resourceType: 'fetch' };
    expect(
      unlisted([
        request('https://cdn.vendor-e.test/r.js', { status: null, failure: 'net::ERR_FAILED' }),
        request('https://in.vendor-e.test/i', { ...posted, status: null, failure: 'net::ERR_FAILED' }),
        request('https://cdn.shop.test/r.js'),
        request('https://in.shop.test/i', posted),
        request('https://connect.facebook.net/en_US/fbevents.js'),
        request('https://www.facebook.com/tr/?id=123&ev=PageView&appId=9', posted),
      ]),
    ).toEqual([]);
  });
});
