import { describe, expect, it, vi } from 'vitest';
import { NativeRouteTable } from '../../../src/gateway/native/routes.js';
import type { OutboundClient } from '../../../src/lib/outbound.js';
import { defaultSettings } from '../../../src/modules/containers/settings.js';
import type { ContainerTraffic } from '../../../src/modules/containers/traffic.js';

const upstream = (id: string) => ({
  containerId: id,
  hostnames: [`${id}.gw.test`],
  settings: defaultSettings('loader'),
  upstreamUrl: 'http://127.0.0.1:8080/',
});

/** The route table over a fleet given in memory: the traffic service's lists and the requests each container had. */
async function routesOf(ids: string[], requests: Record<string, number>, limit?: number) {
  let countsAsked = 0;
  const traffic = {
    upstreamRoutes: async () => ids.map(upstream),
    replicaRoutes: async () => [],
    recentRequests: async () => {
      countsAsked++;
      return new Map(Object.entries(requests));
    },
  };
  const outbound = { resolveGuarded: async () => ['127.0.0.1'] };
  // Cast: the route table reads only these methods, given here without a database or DNS.
  const deps = { traffic: traffic as unknown as ContainerTraffic, outbound: outbound as unknown as OutboundClient };
  const table = new NativeRouteTable(deps, limit);
  const routes = await table.routes();
  const order = routes.map(({ route }) => route.containerId);
  return { ids: [...order].sort(), order, countsAsked: () => countsAsked, table };
}

describe('the containers nginx proxies itself', () => {
  it('are all of them within the limit, the busiest first and then by id, so that their pools come first', async () => {
    const { ids, order } = await routesOf(['ctr_a', 'ctr_b', 'ctr_c', 'ctr_d'], { ctr_c: 7, ctr_d: 90 }, 4);
    expect(ids).toEqual(['ctr_a', 'ctr_b', 'ctr_c', 'ctr_d']);
    expect(order).toEqual(['ctr_d', 'ctr_c', 'ctr_a', 'ctr_b']);
  });

  it('read the requests of the containers again only after ten minutes, however often everything is read', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const { table, countsAsked } = await routesOf(['ctr_a'], {});
      for (let i = 0; i < 3; i++) {
        table.resync();
        await table.routes();
      }
      expect(countsAsked()).toBe(1);
      vi.advanceTimersByTime(10 * 60_000 + 1);
      table.resync();
      await table.routes();
      expect(countsAsked()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('are the busiest beyond it, ties broken by id so refreshes choose the same ones', async () => {
    const ids = ['ctr_a', 'ctr_b', 'ctr_c', 'ctr_d', 'ctr_e'];
    const { ids: chosen } = await routesOf(ids, { ctr_e: 900, ctr_c: 50, ctr_b: 50 }, 3);
    expect(chosen).toEqual(['ctr_b', 'ctr_c', 'ctr_e']);
    expect((await routesOf(ids, {}, 2)).ids).toEqual(['ctr_a', 'ctr_b']);
  });
});
