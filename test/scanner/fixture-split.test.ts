import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_EXPECTATIONS } from '../fixtures/scanner/expectations.js';
import { HELDOUT_PAGES, HELDOUT_SITE_HOSTS } from '../fixtures/scanner/heldout/pages.js';
import { ALL_HOSTS, type FixtureServer, startFixtureServer } from '../fixtures/scanner/server.js';

// The fixture set's two halves are well formed. Held-out pages are not scanned here: misses there are the measurement
// (npm run bench scanner), not test failures; see test/fixtures/scanner/README.md.

let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer({ bigPageBytes: 1 });
});
afterAll(async () => {
  await fixture?.close();
});

function get(host: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      { host: '127.0.0.1', port: fixture.port, path, servername: host, headers: { host }, ca: fixture.certs.caPem },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('scanner fixture set', () => {
  it('has both halves, on separate hosts, every page served by the fixture server', async () => {
    const heldout = FIXTURE_EXPECTATIONS.filter((page) => page.split === 'heldout');
    const training = FIXTURE_EXPECTATIONS.filter((page) => page.split === 'training');
    expect(heldout.length).toBeGreaterThanOrEqual(20);
    expect(training.length).toBeGreaterThan(0);
    const trainingHosts = new Set(training.map((page) => page.host));
    for (const page of heldout) expect(trainingHosts.has(page.host), page.host).toBe(false);
    for (const page of FIXTURE_EXPECTATIONS) {
      expect(ALL_HOSTS, page.host).toContain(page.host);
      expect(await get(page.host, page.path ?? '/'), page.host).toBe(200);
    }
  });

  it('held-out pages only reference hosts the fixture server answers for', () => {
    for (const [key, html] of Object.entries(HELDOUT_PAGES)) {
      expect(HELDOUT_SITE_HOSTS, key).toContain(key.split(' ')[0]);
      const hosts = [...html.matchAll(/(?:src|href)="https:\/\/([^/"]+)/g)].map((match) => match[1]);
      for (const host of hosts.filter((name) => !/^www\.(facebook|pinterest)\.com$/.test(name)))
        expect(ALL_HOSTS, `${key} → ${host}`).toContain(host);
    }
  });
});
