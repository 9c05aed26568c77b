import { describe, expect, it } from 'vitest';
import { emptyRuntimeFindings, type RuntimeFindings } from '../../../src/scanner/browser.js';
import { DEFAULT_SCANNER_OPTIONS } from '../../../src/scanner/index.js';
import { mergeRuntime, mergeStatic, pickInternalLinks, visitPages } from '../../../src/scanner/pages.js';
import type { StaticFindings } from '../../../src/scanner/parse.js';
import { SsrfGuard } from '../../../src/scanner/ssrf.js';

// Issue 15, item 14: which internal pages a scan of several pages visits, and how the pages are merged.

const START = 'https://www.shop.test/';

describe('pickInternalLinks', () => {
  it('keeps pages of the same registrable domain, one per section first, in document order', () => {
    const links = [
      'https://www.shop.test/products/shoes',
      'https://www.shop.test/products/socks',
      'https://www.shop.test/about#team',
      'https://blog.shop.test/',
      'https://www.elsewhere.test/',
      'https://www.shop.test/contact',
    ];
    expect(pickInternalLinks(START, links, 4)).toEqual([
      'https://www.shop.test/products/shoes',
      'https://www.shop.test/about',
      'https://blog.shop.test/',
      'https://www.shop.test/contact',
    ]);
    expect(pickInternalLinks(START, links, 5).at(-1)).toBe('https://www.shop.test/products/socks');
    expect(pickInternalLinks(START, links, 1)).toEqual(['https://www.shop.test/products/shoes']);
    expect(pickInternalLinks(START, links, 0)).toEqual([]);
  });

  it('leaves out the start page, duplicates, fragments, files, actions and non-web links', () => {
    const links = [
      'https://www.shop.test/',
      'https://www.shop.test/#top',
      'https://www.shop.test/index',
      'https://www.shop.test/index/',
      'https://www.shop.test/index#x',
      'https://www.shop.test/catalogue.pdf',
      'https://www.shop.test/images/hero.JPG',
      'https://www.shop.test/cart?add-to-cart=3',
      'https://www.shop.test/account/logout',
      'https://www.shop.test/sign-out',
      'mailto:shop@shop.test',
      'tel:+100',
      'javascript:void(0)',
      'ftp://www.shop.test/file',
      'https://user:secret@www.shop.test/private',
      'https://[broken',
    ];
    expect(pickInternalLinks(START, links, 5)).toEqual(['https://www.shop.test/index']);
  });

  it('resolves relative links against the start page and keeps query strings apart', () => {
    expect(pickInternalLinks(START, ['/a?page=2', '/a?page=3', '/a?page=2'], 5)).toEqual([
      'https://www.shop.test/a?page=2',
      'https://www.shop.test/a?page=3',
    ]);
  });
});

const runtime = (overrides: Partial<RuntimeFindings>): RuntimeFindings => ({
  ...emptyRuntimeFindings(START),
  ...overrides,
});

describe('merging pages', () => {
  it('adds every page’s requests, globals and ids; a cookie keeps the page that set it', () => {
    const request = (url: string) => ({
      url,
      method: 'GET',
      resourceType: 'script',
      status: 200,
      failure: null,
      frameUrl: null,
      atMs: 10,
      postData: null,
    });
    const cookie = (name: string, setBy: 'script' | 'http', script: string | null) => ({
      name,
      domain: 'shop.test',
      expires: -1,
      httpOnly: false,
      setBy,
      script,
    });
    const merged = mergeRuntime([
      runtime({
        requests: [request('https://a.test/1')],
        globals: ['gtag'],
        googleTagIds: ['G-1'],
        cookies: [cookie('_ga', 'script', 'https://www.googletagmanager.com/gtag/js')],
        banner: { visible: false, via: null, cmp: null },
      }),
      null,
      runtime({
        finalUrl: 'https://www.shop.test/about',
        requests: [request('https://b.test/2')],
        globals: ['gtag', 'fbq'],
        googleTagIds: ['G-1', 'AW-2'],
        cookies: [cookie('_ga', 'http', null), cookie('_fbp', 'script', 'fbevents.js')],
        banner: { visible: true, via: 'selector', cmp: 'Onetrust' },
        tcfApi: true,
      }),
    ]);
    expect(merged?.finalUrl).toBe(START);
    expect(merged?.requests.map((item) => item.url)).toEqual(['https://a.test/1', 'https://b.test/2']);
    expect(merged?.globals).toEqual(['gtag', 'fbq']);
    expect(merged?.googleTagIds).toEqual(['G-1', 'AW-2']);
    expect(merged?.cookies.map((item) => [item.name, item.setBy])).toEqual([
      ['_ga', 'script'],
      ['_fbp', 'script'],
    ]);
    expect(merged?.banner.cmp).toBe('Onetrust');
    expect(merged?.tcfApi).toBe(true);
  });

  it('is the page itself for one page, and null for none', () => {
    const only = runtime({});
    expect(mergeRuntime([only, null])).toBe(only);
    expect(mergeRuntime([null])).toBeNull();
    expect(mergeStatic([null, null])).toBeNull();
  });

  it('adds the other pages’ scripts and noscript content once each', () => {
    const html = (src: string): StaticFindings => ({
      scripts: [{ src, code: '', hold: null, attributes: {} }],
      preloads: [src],
      noscript: [{ tag: 'img', url: 'https://www.facebook.com/tr?id=1', inHead: false }],
      noscriptMarkup: ['<img src="https://www.facebook.com/tr?id=1">'],
      meta: { charset: 'utf-8', refresh: null, generator: null },
      title: src,
    });
    const merged = mergeStatic([html('https://a.test/a.js'), html('https://b.test/b.js'), html('https://a.test/a.js')]);
    expect(merged?.scripts).toHaveLength(2);
    expect(merged?.preloads).toEqual(['https://a.test/a.js', 'https://b.test/b.js']);
    expect(merged?.noscript).toHaveLength(1);
    expect(merged?.noscriptMarkup).toHaveLength(1);
    expect(merged?.title).toBe('https://a.test/a.js');
  });
});

describe('visitPages', () => {
  it('skips every page, without loading it, when the time left is too short for one', async () => {
    const loaded: string[] = [];
    const visits = await visitPages(['https://www.shop.test/a', 'https://www.shop.test/b'], {
      capture: async (url) => {
        loaded.push(url);
        return runtime({ finalUrl: url });
      },
      guard: new SsrfGuard({ allowPrivateNetworks: false }),
      language: 'en',
      deadline: Date.now() + 2_000,
      signal: new AbortController().signal,
      options: DEFAULT_SCANNER_OPTIONS,
    });
    expect(visits.map((visit) => [visit.url, visit.status])).toEqual([
      ['https://www.shop.test/a', 'skipped'],
      ['https://www.shop.test/b', 'skipped'],
    ]);
    expect(loaded).toEqual([]);
  });
});
