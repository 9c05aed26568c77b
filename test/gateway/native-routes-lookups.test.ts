import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NativeRouteTable } from '../../src/gateway/native/routes.js';
import { OutboundClient } from '../../src/lib/outbound.js';
import { configuredResolveHost } from '../../src/lib/resolve.js';
import { defaultSettings } from '../../src/modules/containers/settings.js';
import type { ContainerTraffic } from '../../src/modules/containers/traffic.js';
import { startDns, type TestDns } from '../helpers/dns.js';

const UPSTREAMS = ['one', 'two', 'three', 'four', 'five', 'six'].map((name) => `${name}.upstreams.test`);
/** How long the DNS server holds its answers at most, waiting to have been asked every name. */
const BARRIER_MS = 5_000;

/**
 * The nginx engine's routing table names each upstream by address, so a refresh resolves every upstream host. The
 * DNS server here answers nothing until it has been asked every name: lookups made one after another would wait out
 * its barrier; lookups made at once pass it.
 */
describe("the nginx engine's routes resolve upstream hosts at once", () => {
  let dns: TestDns;
  let barrierTimedOut = false;

  beforeAll(async () => {
    dns = await startDns();
    for (const name of UPSTREAMS) dns.records.set(name, [{ type: 'A', value: '127.0.0.1' }]);
    const everyNameAsked = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        barrierTimedOut = true;
        resolve();
      }, BARRIER_MS);
      const check = setInterval(() => {
        if (UPSTREAMS.every((name) => dns.questions.includes(name))) {
          clearTimeout(timer);
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    dns.holdAnswers(() => everyNameAsked);
  });
  afterAll(() => dns?.close());

  it('asks for every upstream before any answer comes, and routes each to its addresses', async () => {
    const rows = UPSTREAMS.map((name, index) => ({
      containerId: `ctr_${index}`,
      hostnames: [`c${index}.containers.test`],
      settings: defaultSettings(`loader${index}`),
      upstreamUrl: `http://${name}:8080/`,
    }));
    const traffic = {
      upstreamRoutes: async () => rows,
      replicaRoutes: async () => [],
      recentRequests: async () => new Map<string, number>(),
    };
    const outbound = new OutboundClient({
      allowPrivateNetworks: true,
      resolveHost: configuredResolveHost([`127.0.0.1:${dns.port}`], 2 * BARRIER_MS),
    });
    // Cast: the route table reads only these of the traffic service, given here without a database.
    const routes = await new NativeRouteTable({ traffic: traffic as unknown as ContainerTraffic, outbound }).routes();
    expect(barrierTimedOut).toBe(false);
    expect(routes.map(({ route }) => [route.containerId, route.upstream.addresses])).toEqual(
      rows.map((row) => [row.containerId, ['127.0.0.1:8080']]),
    );
  }, 30_000);
});
