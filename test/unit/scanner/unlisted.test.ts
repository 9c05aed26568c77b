import { describe, expect, it } from 'vitest';
import {
  emptyRuntimeFindings,
  type RuntimeCookie,
  type RuntimeFindings,
  type RuntimeRequest,
} from '../../../src/scanner/browser.js';
import type { StorageWrite } from '../../../src/scanner/capture-types.js';
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

const unlisted = (requests: RuntimeRequest[], cookies: RuntimeCookie[] = [], storageWrites: StorageWrite[] = []) => {
  const runtime: RuntimeFindings = { ...emptyRuntimeFindings(SITE), requests, cookies, storageWrites };
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

  it('an identifier its script stored counts as a point like a cookie; a preference or a first-party write does not', () => {
    const stored = (key: string, value: string, script: string | null): StorageWrite => ({
      area: 'local',
      key,
      value,
      script,
    });
    const scripts = [request('https://cdn.vendor-f.test/f.js'), request('https://cdn.ui-g.test/kit.js')];
    expect(unlisted(scripts)).toEqual([]);
    expect(
      unlisted(
        scripts,
        [],
        [
          stored('_vf_uid', 'k2j3h4g5f6d', 'https://cdn.vendor-f.test/f.js'),
          stored('theme', 'dark', 'https://cdn.ui-g.test/kit.js'),
          stored('settings', '{"locale":"en-US","version":"2.4.0"}', 'https://cdn.ui-g.test/kit.js'),
          stored('visitor', 'c2a1f0de-5b2e-4e7a-9d61-0f5c2a7b8e91', 'https://www.shop.test/app.js'),
          stored('visitor2', 'c2a1f0de-5b2e-4e7a-9d61-0f5c2a7b8e92', SITE),
          stored('orphan', 'c2a1f0de-5b2e-4e7a-9d61-0f5c2a7b8e93', null),
        ],
      ),
    ).toEqual([['vendor-f.test', 'low', []]]);
    // Beside a cookie of its own, an identifier in storage makes two points.
    expect(
      unlisted(
        scripts,
        [cookie('_vf_s', 'shop.test', 'https://cdn.vendor-f.test/f.js')],
        [stored('_vf_uid', '{"id":"k2j3h4g5f6d","at":1700000000000}', 'https://cdn.vendor-f.test/f.js')],
      ),
    ).toEqual([['vendor-f.test', 'medium', []]]);
  });
});
