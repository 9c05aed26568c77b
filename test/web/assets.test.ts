import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const ASSETS_DIR = path.resolve('src/web/assets');

/** Relative module specifiers of `import ... from './x.js'` and `import './x.js'`. */
function relativeImports(source: string): string[] {
  return [...source.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?'(\.\/[^']+)';$/gm)].map((match) => match[1]);
}

describe('web UI assets', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves every script in src/web/assets as JavaScript, and every module the entry imports', async () => {
    const files = fs.readdirSync(ASSETS_DIR).filter((name) => name.endsWith('.js'));
    expect(files).toContain('app.js');
    const imported = new Set(
      files.flatMap((name) =>
        relativeImports(fs.readFileSync(path.join(ASSETS_DIR, name), 'utf8')).map((spec) => spec.slice(2)),
      ),
    );
    expect(imported.size).toBeGreaterThan(0);
    for (const name of new Set([...files, ...imported])) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${name}` });
      expect(response.statusCode, name).toBe(200);
      expect(response.headers['content-type'], name).toBe('text/javascript; charset=utf-8');
    }
  });

  it('loads the app as a module after the page scripts it needs (chart.js)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/check' });
    const page = response.body;
    expect(page).toContain('<script type="module" src="/assets/app.js"></script>');
    expect(page.indexOf('<script src="/assets/chart.js">')).toBeGreaterThan(-1);
    expect(page.indexOf('<script src="/assets/chart.js">')).toBeLessThan(page.indexOf('src="/assets/app.js"'));
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('does not serve files outside the allow-list', async () => {
    for (const name of ['html.ts', '..%2Froutes.ts', 'unknown.js']) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${name}` });
      expect(response.statusCode, name).toBe(404);
    }
  });
});
