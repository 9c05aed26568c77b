import { describe, expect, it } from 'vitest';
import { EVERYTHING, type Invalidation, type InvalidationBus } from '../../../../../src/db/invalidation.js';
import { MetaSink, type MetaPixelSource } from '../../../../../src/gateway/runtime/meta/sink.js';
import { defaultSettings } from '../../../../../src/modules/containers/settings.js';
import type { GatewayRoute } from '../../../../../src/modules/containers/traffic.js';
import {
  META_PIXELS_CHANGED,
  type MetaDeliveryOutcome,
  type MetaForwardingTarget,
} from '../../../../../src/modules/meta-pixels/service.js';
import { testEvent, testVisitor } from '../fixtures.js';

/** The pixels of each container, as the pixels service would give them, counting its lookups. */
class PixelTable implements MetaPixelSource {
  readonly pixels = new Map<string, MetaForwardingTarget[]>();
  lookups = 0;
  /** When set, lookups wait for it: a lookup still running when a change comes in. */
  gate: Promise<void> | null = null;

  async forwardingTargets(containerId: string): Promise<MetaForwardingTarget[]> {
    this.lookups++;
    const found = [...(this.pixels.get(containerId) ?? [])];
    if (this.gate) await this.gate;
    return found;
  }

  async recordDeliveries(_outcome: MetaDeliveryOutcome): Promise<void> {}
}

/** The bus's subscriber side, delivering what the test publishes (the sink only subscribes). */
function localBus() {
  const subscribers: Array<(invalidation: Invalidation) => void> = [];
  const bus = { subscribe: (subscriber: (invalidation: Invalidation) => void) => subscribers.push(subscriber) };
  return {
    bus: bus as unknown as InvalidationBus,
    publish: (invalidation: Invalidation) => {
      for (const subscriber of subscribers) subscriber(invalidation);
    },
  };
}

const pixel = (id: string): MetaForwardingTarget => ({
  id,
  pixelId: `10000000000000${id.length}`,
  accessToken: 'EAAtoken',
  testEventCode: null,
});
const route = (containerId: string): GatewayRoute => ({
  containerId,
  status: 'running',
  upstreamUrl: null,
  runtime: 'builtin',
  gtmContainerId: null,
  settings: defaultSettings('loader'),
  endpoints: [],
  preview: false,
});
const event = testEvent({
  name: 'purchase',
  pageUrl: 'https://shop.example.com/thanks',
  pageTitle: 'Thanks',
  value: 10,
  currency: 'EUR',
});
const visitor = testVisitor();

function sinkWith(table: PixelTable) {
  const { bus, publish } = localBus();
  const sink = new MetaSink(
    { pixels: table, sender: { send: async () => ({ outcome: 'delivered' }) as never }, invalidations: bus },
    { maxAttempts: 3, onError: (error) => expect.fail(String(error)) },
  );
  const offer = (containerId: string) => sink.sink({ event, visitor, route: route(containerId) });
  return { offer, publish };
}

const destinations = async (made: ReturnType<ReturnType<typeof sinkWith>['offer']>) =>
  (await made).map((job) => job.outgoing?.destination);

describe('MetaSink', () => {
  it('looks a container up once, then makes its jobs without waiting; a change looks it up again', async () => {
    const table = new PixelTable();
    table.pixels.set('ctr_a', [pixel('mpx_1')]);
    const { offer, publish } = sinkWith(table);
    const first = offer('ctr_a');
    expect(first).toBeInstanceOf(Promise);
    expect(await destinations(first)).toHaveLength(1);
    const cached = offer('ctr_a');
    expect(Array.isArray(cached)).toBe(true);
    expect(table.lookups).toBe(1);

    table.pixels.set('ctr_a', [pixel('mpx_1'), pixel('mpx_22')]);
    publish({ kind: META_PIXELS_CHANGED, id: 'ctr_a' });
    expect(await destinations(offer('ctr_a'))).toHaveLength(2);
    expect(table.lookups).toBe(2);

    table.pixels.set('ctr_a', []);
    publish(EVERYTHING);
    expect(await offer('ctr_a')).toEqual([]);
    expect(offer('ctr_a')).toEqual([]);
    expect(table.lookups).toBe(3);
  });

  it('does not keep what a lookup found when a change came in while it ran', async () => {
    const table = new PixelTable();
    table.pixels.set('ctr_b', [pixel('mpx_1')]);
    const { offer, publish } = sinkWith(table);
    let open!: () => void;
    table.gate = new Promise((resolve) => {
      open = resolve;
    });
    const stale = offer('ctr_b');
    table.pixels.set('ctr_b', []);
    publish({ kind: META_PIXELS_CHANGED, id: 'ctr_b' });
    open();
    table.gate = null;
    expect(await destinations(stale)).toHaveLength(1);
    expect(await offer('ctr_b')).toEqual([]);
    expect(table.lookups).toBe(2);
  });
});
