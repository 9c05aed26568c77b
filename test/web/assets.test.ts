import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const BROWSER_DIR = 'src/web/browser';

/** The browser modules with code of their own (not only types), which the page bundles must include. */
function runtimeModules(): string[] {
  return fs
    .readdirSync(BROWSER_DIR)
    .filter((name) => name.endsWith('.ts'))
    .filter((name) =>
      /^(export )?(async )?(function|const|let|class|for|if) /m.test(
        fs.readFileSync(path.join(BROWSER_DIR, name), 'utf8'),
      ),
    );
}

describe('web UI assets', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves each page script as one bundled JavaScript module built from src/web/browser', async () => {
    const bundles: string[] = [];
    for (const name of ['app.js', 'status.js']) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${name}` });
      expect(response.statusCode, name).toBe(200);
      expect(response.headers['content-type'], name).toBe('text/javascript; charset=utf-8');
      expect(response.body, name).not.toMatch(/^\s*import\s/m);
      bundles.push(response.body);
    }
    const modules = runtimeModules();
    expect(modules).toEqual(expect.arrayContaining(['ui.ts', 'scan-result.ts', 'status.ts']));
    for (const name of modules) expect(bundles.join('\n'), name).toContain(`// ${BROWSER_DIR}/${name}`);
    // Bundled once per process: the second answer is the same bytes.
    const again = await t.app.inject({ method: 'GET', url: '/assets/app.js' });
    expect(again.body).toBe(bundles[0]);
  });

  it('loads the app as a module after the page scripts it needs (chart.js)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/check' });
    const page = response.body;
    expect(page).toContain('<script type="module" src="/assets/app.js"></script>');
    expect(page.indexOf('<script src="/assets/chart.js">')).toBeGreaterThan(-1);
    expect(page.indexOf('<script src="/assets/chart.js">')).toBeLessThan(page.indexOf('src="/assets/app.js"'));
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('does not serve files outside the allow-list, nor the browser sources one by one', async () => {
    for (const name of ['html.ts', '..%2Froutes.ts', 'unknown.js', 'ui.js', 'ui.ts', 'scan-result.js']) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${name}` });
      expect(response.statusCode, name).toBe(404);
    }
  });
});
