import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShop } from '../fixtures/runtime/shop.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { until } from '../helpers/google-fixture.js';
import { recordHandOffs } from '../helpers/gateway-app.js';
import { waitFor } from '../helpers/processes.js';
import {
  noneAlive,
  SGTM_AUTH,
  SGTM_BASE_DOMAIN,
  SGTM_CONFIG,
  SGTM_GTM_ID,
  proxiedByNginx,
  type SgtmApp,
  startSgtmApp,
} from '../helpers/sgtm-app.js';
import { alive } from '../helpers/tagging-servers.js';

/** The hits the collector got carrying this marker (the `_m` parameter each test sets). */
const marked = (s: SgtmApp, marker: string) => s.google.hits.filter((hit) => hit.params.get('_m') === marker);

// Runtime `sgtm` on the process driver, end to end: the API creates the container, the supervisor runs the stand-in
// tagging server (two replicas and a preview server), the gateway (both engines, over https with a test CA's
// wildcard certificate the replicas trust) relays to them, and the stand-in forwards hits to the fake collector.
describe.each(['node', 'nginx'] as const)('runtime sgtm on the process driver, through the %s gateway', (engine) => {
  let s: SgtmApp;
  let container: { id: string; default_hostname: string; settings: { loader_path: string } };
  let host: string;

  beforeAll(async () => {
    s = await startSgtmApp('pglite', { engine });
    container = await s.createSgtm();
    host = container.default_hostname;
    await s.until(container.id, 'running', { unless: ['failed'] });
    // `running` needs one ready tagging replica; the second may be a moment behind.
    await waitFor(async () => (await s.get(container.id)).tagging_server.replicas.ready === 2, 20_000, 'two ready');
    // The nginx engine proxies to the ready replicas itself once its config names them.
    if (engine === 'nginx') await waitFor(async () => proxiedByNginx(s, container.id), 10_000, 'nginx');
  }, 60_000);
  afterAll(async () => {
    const pids = (await s?.close()) ?? [];
    expect(noneAlive(pids)).toBe(true);
  });

  it('is running with two ready tagging replicas, a preview URL on the gateway, and its config masked', async () => {
    const shown = await s.api('GET', `/api/containers/${container.id}/`);
    expect(shown.statusCode).toBe(200);
    const body = shown.json();
    expect(body).toMatchObject({
      status: 'running',
      runtime: 'sgtm',
      tagging_server: {
        driver: 'process',
        state: 'available',
        replicas: { ready: 2 },
        preview_url: `https://${host.replace(`.${SGTM_BASE_DOMAIN}`, `-preview.${SGTM_BASE_DOMAIN}`)}:${s.tlsPort}`,
      },
    });
    expect(body.config).not.toBe(SGTM_CONFIG);
    expect(shown.body).not.toContain(SGTM_CONFIG);
    expect(shown.body).not.toContain(SGTM_AUTH);
    expect(s.pids(container.id, 'tagging')).toHaveLength(2);
    expect(s.pids(container.id, 'preview')).toHaveLength(1);
    for (const pid of s.pids(container.id)) expect(alive(pid)).toBe(true);
  });

  it('relays a GA4 hit on the default hostname to the stand-in, which delivers it to the collector', async () => {
    const marker = `collect-${engine}`;
    const answer = await s.https(host, `/g/collect?v=2&tid=G-SGTM1&en=page_view&_m=${marker}`);
    expect(answer.status).toBe(204);
    await until(() => marked(s, marker).length === 1, 5_000);
    expect(marked(s, marker)[0].params.get('tid')).toBe('G-SGTM1');
  });

  it.runIf(engine === 'nginx')(
    'proxies to the replicas in nginx itself, once its reloaded config names them',
    async () => {
      const { handed: handedToNode, restore } = recordHandOffs(s.app.services);
      let sent = 0;
      try {
        // The config is written before nginx reloads it: the first hits may still reach the old workers.
        await waitFor(
          async () => {
            const marker = `native-${++sent}`;
            expect((await s.https(host, `/g/collect?v=2&tid=G-SGTM1&_m=${marker}`)).status).toBe(204);
            return !handedToNode.some((url) => url.includes(marker));
          },
          10_000,
          'a hit nginx proxied itself',
        );
      } finally {
        restore();
      }
      await until(() => marked(s, `native-${sent}`).length === 1, 5_000);
    },
  );

  it("serves the stand-in's gtm.js for the container's own id on the custom loader path", async () => {
    const answer = await s.https(host, `/${container.settings.loader_path}.js?id=${SGTM_GTM_ID}`);
    expect(answer).toMatchObject({ status: 200 });
    expect(answer.body).toContain(`window.standinContainer = "${SGTM_GTM_ID}"`);
    // Another container's id is the tagging server's to refuse, not ours to serve.
    expect((await s.https(host, `/${container.settings.loader_path}.js?id=GTM-OTHER99`)).status).toBe(404);
  });

  it('hands a request with X-Gtm-Server-Preview to the preview server, through the preview URL over https', async () => {
    const before = s.google.hits.length;
    const answer = await s.https(host, '/g/collect?v=2&_m=preview', {
      headers: { 'x-gtm-server-preview': 'ZW52LTM=' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      preview: true,
      container: SGTM_GTM_ID,
      path: '/g/collect?v=2&_m=preview',
    });
    expect(s.google.hits.length).toBe(before);
  });

  it('loads GTM in headless Chromium through the container over https and its hit reaches the collector', async () => {
    const origin = `https://${host}:${s.tlsPort}`;
    const marker = `chromium-${engine}`;
    const shop = await startShop(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${origin}/${container.settings.loader_path}.js?id=${SGTM_GTM_ID}"></script>
<script>
  fetch('${origin}/g/collect?v=2&tid=G-SHOP1&en=page_view&_m=${marker}&dl=' + encodeURIComponent(location.href),
    { mode: 'no-cors', credentials: 'include' }).then(() => { window.hitSent = true; });
</script></head><body><h1>Shop</h1></body></html>`,
    );
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        ...CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--host-resolver-rules')),
        `--host-resolver-rules=MAP shop.test 127.0.0.1:${shop.port}, MAP ${host} 127.0.0.1, MAP * ~NOTFOUND`,
        `--ignore-certificate-errors-spki-list=${s.leafSpki}`,
      ],
    });
    try {
      const page = await browser.newPage();
      await page.goto('http://shop.test/');
      await page.waitForFunction(() => (window as unknown as { hitSent?: boolean }).hitSent === true);
      expect(await page.evaluate(() => (window as unknown as { standinContainer?: string }).standinContainer)).toBe(
        SGTM_GTM_ID,
      );
      await until(() => marked(s, marker).length === 1, 5_000);
      expect(marked(s, marker)[0].params.get('dl')).toBe('http://shop.test/');
    } finally {
      await browser.close();
      await shop.close();
    }
  }, 60_000);

  it('restarts a replica killed with SIGKILL under a stream of hits; every hit answered 2xx reaches the collector', async () => {
    const marker = `stream-${engine}`;
    const [victim, survivor] = s.pids(container.id, 'tagging');
    const total = 300;
    const concurrency = 6;
    const statuses = new Map<string, number>();
    let next = 0;
    let killed = false;
    async function worker() {
      while (next < total) {
        const n = next++;
        if (n === 60 && !killed) {
          killed = true;
          process.kill(victim, 'SIGKILL');
        }
        const answer = await s
          .https(host, `/g/collect?v=2&tid=G-STREAM1&en=e${n}&_m=${marker}&n=${n}`)
          .catch(() => ({ status: 0 }));
        statuses.set(String(n), answer.status);
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker));
    expect(killed).toBe(true);
    const acknowledged = [...statuses].filter(([, status]) => status >= 200 && status < 300).map(([n]) => n);
    // The collector answers at once: a hit acknowledged with 2xx was delivered before its answer was sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const delivered = marked(s, marker).map((hit) => hit.params.get('n') ?? '');
    // Every acknowledged hit reached the collector. The Node engine retries only what never reached a replica, so
    // none arrives twice. nginx gives a request one more try when a kept-alive connection fails, whether or not the
    // replica had read it, so a hit the killed replica had already forwarded may arrive twice there: at most the
    // requests in flight at the kill. A forwarded hit answered 502 is bounded the same way.
    const unique = new Set(delivered);
    expect(acknowledged.filter((n) => !unique.has(n))).toEqual([]);
    if (engine === 'node') expect(unique.size).toBe(delivered.length);
    expect(delivered.length - unique.size).toBeLessThanOrEqual(concurrency);
    expect(unique.size - acknowledged.length).toBeLessThanOrEqual(concurrency);
    const failed = [...statuses].filter(([, status]) => status < 200 || status >= 300);
    console.log(
      `[figures] ${engine} engine, kill -9 under ${total} hits: ${acknowledged.length} answered 2xx, ${delivered.length} delivered, failures ${JSON.stringify(failed)}`,
    );
    expect(acknowledged.length).toBeGreaterThanOrEqual(total * 0.9);
    // The killed replica is replaced by a new process; the other one was left alone.
    await waitFor(
      async () => {
        const pids = s.pids(container.id, 'tagging');
        return pids.length === 2 && !pids.includes(victim) && pids.every(alive);
      },
      20_000,
      'the killed replica to be restarted',
    );
    expect(s.pids(container.id, 'tagging')).toContain(survivor);
    expect(alive(victim)).toBe(false);
    await waitFor(
      async () => (await s.get(container.id)).tagging_server.replicas.ready === 2,
      20_000,
      'two ready replicas again',
    );
    expect((await s.get(container.id)).status).toBe('running');
    // And the restarted pool serves.
    expect((await s.https(host, `/g/collect?v=2&tid=G-STREAM1&_m=${marker}-after`)).status).toBe(204);
  }, 60_000);

  it('never logged or answered the config string', () => {
    const log = s.logs.join('\n');
    expect(s.logs.length).toBeGreaterThan(0);
    expect(log).not.toContain(SGTM_CONFIG);
    expect(log).not.toContain(SGTM_AUTH);
  });
});
