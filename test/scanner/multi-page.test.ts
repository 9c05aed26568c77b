import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ScanResultSchema, type ScanResult } from '../../src/scanner/index.js';
import { I15E_IDS } from '../fixtures/scanner/pages-i15e.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, item 14, end to end in Chromium: `pages: 1..5` visits internal pages linked from the start page in one
// browser session and merges what they show (fixtures/scanner/pages-i15e.ts).

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

async function scan(host: string, pages?: number): Promise<ScanResult> {
  const result = await setup.scanner.scan({
    url: setup.fixture.url(host, '/'),
    aiSummary: true,
    pagespeed: false,
    language: 'en',
    pages,
  });
  expect([...Value.Errors(ScanResultSchema, result)].slice(0, 5)).toEqual([]);
  return result;
}

const keys = (result: ScanResult) => result.trackers.map((tracker) => tracker.key).sort();
const path = (url: string | null) => (url ? new URL(url).pathname : null);

describe('scans of more than one page', () => {
  it('one page by default: no pages list, only the start page’s trackers', async () => {
    const result = await scan('www.i15e-shop.test');
    expect(result.pages).toBeUndefined();
    expect(keys(result)).toEqual(['google_analytics_4']);
    expect(setup.fixture.log.filter((line) => line.startsWith('www.i15e-shop.test /products/'))).toEqual([]);
  });

  it('visits one page per section in one session and merges their trackers, ids and cookies', async () => {
    const result = await scan('www.i15e-shop.test', 3);
    expect(result.pages?.map((page) => [path(page.url), page.status])).toEqual([
      ['/', 'ok'],
      ['/products/shoes', 'ok'],
      ['/about', 'ok'],
    ]);
    const [start, shoes, about] = result.pages ?? [];
    expect(start.trackers).toEqual(['google_analytics_4']);
    expect(shoes.trackers.sort()).toEqual(['google_analytics_4', 'meta_pixel']);
    // Hotjar loads only for a visitor carrying the start page's cookie: found because the pages share a session.
    expect(about.trackers.sort()).toEqual(['google_analytics_4', 'hotjar']);
    expect(shoes).toMatchObject({ http_status: 200, error: null });
    expect(keys(result)).toEqual(['google_analytics_4', 'hotjar', 'meta_pixel']);
    const pixel = result.trackers.find((tracker) => tracker.key === 'meta_pixel');
    expect(pixel?.ids).toEqual([I15E_IDS.pixel]);
    expect(result.cookies.map((cookie) => cookie.name)).toEqual(expect.arrayContaining(['i15e_seen', '_fbp']));
    expect(result.loss_estimate.per_tracker.map((item) => item.key)).toContain('meta_pixel');
    expect(result.ai_summary?.text).toContain('Meta Pixel');
    expect(result.warnings).toEqual([]);
  });

  it('reports a linked page that cannot be reached as failed and goes on with the next', async () => {
    const result = await scan('www.i15e-shop.test', 5);
    expect(result.pages?.map((page) => [page.url.replace(/:\d+/, ''), page.status])).toEqual([
      [setup.fixture.url('www.i15e-shop.test', '/').replace(/:\d+/, ''), 'ok'],
      ['https://www.i15e-shop.test/products/shoes', 'ok'],
      ['https://www.i15e-shop.test/about', 'ok'],
      ['https://blog.i15e-shop.test/', 'failed'],
      ['https://www.i15e-shop.test/contact', 'ok'],
    ]);
    const blog = result.pages?.[3];
    expect(blog?.error).toMatch(/ENOTFOUND|resolve/i);
    expect(blog?.trackers).toEqual([]);
  });

  it('says when the start page links to fewer internal pages than asked for', async () => {
    const result = await scan('www.i15e-lonely.test', 4);
    expect(result.pages?.map((page) => path(page.url))).toEqual(['/', '/only']);
    expect(keys(result)).toEqual(['meta_pixel']);
    expect(result.warnings).toEqual([
      {
        code: 'pages_not_found',
        message: 'Only 1 internal page linked from the start page could be added to the 4 pages asked for.',
      },
    ]);
  });

  it('refuses a page count outside 1–5', async () => {
    for (const pages of [0, 6, 2.5]) {
      await expect(
        setup.scanner.scan({
          url: setup.fixture.url('www.i15e-shop.test', '/'),
          aiSummary: false,
          pagespeed: false,
          language: 'en',
          pages,
        }),
      ).rejects.toThrow(RangeError);
    }
  });
});
