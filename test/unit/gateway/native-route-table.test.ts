import { describe, expect, it } from 'vitest';
import { NativeRouteTable } from '../../../src/gateway/native/routes.js';
import type { OutboundClient } from '../../../src/lib/outbound.js';
import { type ContainerSettingsDto, defaultSettings } from '../../../src/modules/containers/settings.js';
import type { ContainerTraffic } from '../../../src/modules/containers/traffic.js';

interface Container {
  upstreamUrl: string;
  hostnames: string[];
  settings: ContainerSettingsDto;
}

/** A fleet in memory, read as the traffic service reads the database; it counts the containers each read returns. */
function fleetOf(size: number) {
  const containers = new Map<string, Container>();
  for (let i = 0; i < size; i++)
    containers.set(`ctr_${String(i).padStart(3, '0')}`, {
      upstreamUrl: `http://127.0.0.${1 + (i % 3)}:8080/`,
      hostnames: [`c${i}.gw.test`],
      settings: defaultSettings(`loader${i}`),
    });
  const reads: number[] = [];
  const traffic = {
    upstreamRoutes: async (ids?: string[]) => {
      const rows = [...containers]
        .filter(([id]) => !ids || ids.includes(id))
        .map(([containerId, container]) => ({ containerId, ...container, hostnames: [...container.hostnames] }));
      reads.push(rows.length);
      return rows;
    },
    replicaRoutes: async () => [],
    containersOfDomains: async (hostnames: string[]) =>
      [...containers].filter(([, c]) => c.hostnames.some((h) => hostnames.includes(h))).map(([id]) => id),
    recentRequests: async () => new Map<string, number>(),
  };
  const outbound = { resolveGuarded: async (host: string) => [host] };
  // Cast: the table reads only these methods, given here without a database or DNS.
  const deps = { traffic: traffic as unknown as ContainerTraffic, outbound: outbound as unknown as OutboundClient };
  return { containers, reads, deps };
}

const summary = (routes: Awaited<ReturnType<NativeRouteTable['routes']>>) =>
  routes.map(({ route }) => `${route.containerId} ${route.hostnames.join(',')} ${route.upstream.addresses.join(',')}`);

describe("the nginx engine's route table", () => {
  it('re-reads only the container a change names, and routes it as a full read would', async () => {
    const { containers, reads, deps } = fleetOf(50);
    const table = new NativeRouteTable(deps);
    expect(await table.routes()).toHaveLength(50);
    expect(reads).toEqual([50]);

    containers.get('ctr_007')!.upstreamUrl = 'http://127.0.0.9:9090/base/';
    table.containerChanged('ctr_007');
    const routes = await table.routes();
    expect(reads).toEqual([50, 1]);
    expect(routes.find(({ route }) => route.containerId === 'ctr_007')!.route.upstream).toMatchObject({
      addresses: ['127.0.0.9:9090'],
      basePath: '/base',
    });
    expect(summary(routes)).toEqual(summary(await new NativeRouteTable(deps).routes()));
  });

  it('reads everything on the next call after a read failed, so the change it carried is not lost', async () => {
    const { containers, reads, deps } = fleetOf(5);
    const table = new NativeRouteTable(deps);
    await table.routes();
    const read = deps.traffic.upstreamRoutes;
    deps.traffic.upstreamRoutes = async () => {
      throw new Error('the database went away');
    };
    containers.get('ctr_002')!.upstreamUrl = 'http://127.0.0.7/';
    table.containerChanged('ctr_002');
    await expect(table.routes()).rejects.toThrow('the database went away');
    deps.traffic.upstreamRoutes = read;
    expect(summary(await table.routes())).toContain('ctr_002 c2.gw.test 127.0.0.7:80');
    expect(reads).toEqual([5, 5]);
  });

  it('reads nothing when nothing changed', async () => {
    const { reads, deps } = fleetOf(5);
    const table = new NativeRouteTable(deps);
    const first = await table.routes();
    expect(await table.routes()).toEqual(first);
    expect(reads).toEqual([5]);
  });

  it('moves a custom domain from the container it left to the one it joined', async () => {
    const { containers, deps } = fleetOf(10);
    const table = new NativeRouteTable(deps);
    containers.get('ctr_001')!.hostnames.push('shop.example');
    await table.routes();
    containers.get('ctr_001')!.hostnames.pop();
    containers.get('ctr_004')!.hostnames.push('shop.example');
    table.domainChanged('shop.example');
    const routes = summary(await table.routes());
    expect(routes).toContain('ctr_001 c1.gw.test 127.0.0.2:8080');
    expect(routes).toContain('ctr_004 c4.gw.test,shop.example 127.0.0.2:8080');
    expect(routes).toEqual(summary(await new NativeRouteTable(deps).routes()));
  });

  it('drops a container that stopped or now needs Node, and takes a new one while under the limit', async () => {
    const { containers, deps } = fleetOf(4);
    const table = new NativeRouteTable(deps, 4);
    await table.routes();
    containers.delete('ctr_000');
    containers.get('ctr_001')!.settings = { ...defaultSettings('loader1'), user_id_header: { enabled: true } };
    containers.set('ctr_new', {
      upstreamUrl: 'http://127.0.0.5/',
      hostnames: ['new.gw.test'],
      settings: defaultSettings('n'),
    });
    for (const id of ['ctr_000', 'ctr_001', 'ctr_new']) table.containerChanged(id);
    const ids = (await table.routes()).map(({ route }) => route.containerId);
    expect(ids).toEqual(['ctr_002', 'ctr_003', 'ctr_new']);
  });

  it('leaves a newly proxiable container to Node while the limit is full, until the next full read ranks them all', async () => {
    const { containers, reads, deps } = fleetOf(3);
    const table = new NativeRouteTable(deps, 3);
    await table.routes();
    containers.set('ctr_0000', {
      upstreamUrl: 'http://127.0.0.5/',
      hostnames: ['a.gw.test'],
      settings: defaultSettings('a'),
    });
    table.containerChanged('ctr_0000');
    expect((await table.routes()).map(({ route }) => route.containerId)).not.toContain('ctr_0000');
    table.resync();
    // Ties in traffic are broken by id: ctr_0000 sorts before ctr_001 and ctr_002.
    expect((await table.routes()).map(({ route }) => route.containerId)).toEqual(['ctr_000', 'ctr_0000', 'ctr_001']);
    expect(reads).toEqual([3, 1, 4]);
  });
});
