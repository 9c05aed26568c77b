import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startTestApp } from '../helpers/app.js';
import { CONFIG, recordHandOffs, testGateway } from '../helpers/gateway-app.js';
import { waitFor } from '../helpers/processes.js';

const CONTAINERS = 120;
const UPSTREAMS = 8;

/** A tagging server that says which one it is, and what Host and target it got. */
async function startNamedUpstream(name: string) {
  const server = http.createServer((req, res) => res.writeHead(200).end(`${name} ${req.headers.host} ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// The nginx engine routes a fleet by maps (hostname → container → pool): every container, whichever pool it shares
// and whatever its base path, answered by its own upstream through nginx alone, and a change to one live at once.
describe('the nginx engine serving a fleet of containers', () => {
  let t: TestApp;
  let upstreams: Array<Awaited<ReturnType<typeof startNamedUpstream>>>;
  let containers: Array<{ id: string; default_hostname: string; upstream_url: string }>;
  let base: string;
  let token: string;
  let handedToNode: string[] = [];
  const client = new Agent({ connections: 16 });

  const get = async (host: string, target: string) => {
    const response = await request(`${base}${target}`, { headers: { host }, dispatcher: client });
    return { status: response.statusCode, body: await response.body.text() };
  };

  beforeAll(async () => {
    upstreams = await Promise.all(Array.from({ length: UPSTREAMS }, (_, i) => startNamedUpstream(`u${i}`)));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      rateLimitPerMinute: 10_000, // the set-up makes more containers than a token may in a minute
      gateway: testGateway({ engine: 'nginx', tlsPort: null }),
    });
    token = (await t.tenantWithKey('partner')).token;
    containers = [];
    for (let i = 0; i < CONTAINERS; i++) {
      const upstream = `${upstreams[i % UPSTREAMS].origin}${i % 2 ? `/base${i}` : ''}`;
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: { name: `Fleet ${i}`, region: 'eu-central', config: CONFIG, upstream_url: upstream },
      });
      expect(created.statusCode).toBe(201);
      containers.push(created.json());
    }
    await t.app.services.containerWorker.idle();
    handedToNode = recordHandOffs(t.app.services).handed;
    base = (await t.app.services.nativeGateway!.start()).http;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await client.close();
    await Promise.all(upstreams?.map((upstream) => upstream.close()) ?? []);
  });

  it('answers every container from its own upstream, under its base path, through nginx alone', async () => {
    handedToNode.length = 0;
    const order = containers.map((_, i) => (i * 37) % CONTAINERS); // every container once, spread over the pools
    const answers = await Promise.all(order.map((i) => get(containers[i].default_hostname, `/g/collect?n=${i}`)));
    for (const [k, i] of order.entries()) {
      const upstream = upstreams[i % UPSTREAMS];
      expect(answers[k]).toEqual({
        status: 200,
        body: `${upstream.name} ${upstream.origin.slice('http://'.length)} ${i % 2 ? `/base${i}` : ''}/g/collect?n=${i}`,
      });
    }
    expect(handedToNode).toEqual([]);
  });

  it('writes one routed server and one pool per upstream, not one server per container', () => {
    const runDir = (t.app.services.nativeGateway as unknown as { runDir: string }).runDir;
    const config = fs.readFileSync(path.join(runDir, 'nginx.conf'), 'utf8');
    expect(config.match(/\n {2}server \{/g)).toHaveLength(2); // the default server and the routed one
    expect(config.match(/upstream p[0-9a-f]{16} /g)).toHaveLength(UPSTREAMS);
  });

  it("serves a container's new upstream once it is changed, and the others as before", async () => {
    const changed = containers[5];
    const next = upstreams[6];
    const patched = await t.inject({
      method: 'PATCH',
      url: `/api/containers/${changed.id}/`,
      token,
      payload: { upstream_url: next.origin },
    });
    expect(patched.statusCode).toBe(200);
    await waitFor(
      async () => (await get(changed.default_hostname, '/x')).body.startsWith(`${next.name} `),
      10_000,
      'the new upstream',
    );
    expect((await get(containers[4].default_hostname, '/x')).body).toMatch(/^u4 /);
    expect((await get(containers[13].default_hostname, '/x')).body).toMatch(/^u5 \S+ \/base13\/x$/);
  });
});
