import { describe, expect, it } from 'vitest';
import { GatewayMeter, KEPT_LOGS_PER_CONTAINER, type SampledLog } from '../../../src/gateway/meter.js';

const log = (containerId: string, n: number): SampledLog => ({
  containerId,
  at: Date.UTC(2026, 10, 23, 12, 0, 0, n),
  hostname: 'data.shop.test',
  method: 'GET',
  path: `/g/collect?n=${n}`,
  statusCode: 200,
  durationMs: 1,
  upstream: null,
  upstreamMs: null,
});

describe('GatewayMeter', () => {
  it('adds up requests and bytes per container, hostname and status class', () => {
    const meter = new GatewayMeter();
    meter.count('ctr_a', 'a.test', 200, 10, 100);
    meter.count('ctr_a', 'a.test', 204, 5, 0);
    meter.count('ctr_a', 'a.test', 503, 0, 50);
    meter.count('ctr_b', 'b.test', 200, 1, 2);
    const { usage } = meter.take();
    const day = new Date().toISOString().slice(0, 10);
    expect(usage).toEqual(
      expect.arrayContaining([
        {
          containerId: 'ctr_a',
          day,
          hostname: 'a.test',
          statusClass: '2xx',
          requests: 2,
          requestBytes: 15,
          responseBytes: 100,
        },
        {
          containerId: 'ctr_a',
          day,
          hostname: 'a.test',
          statusClass: '5xx',
          requests: 1,
          requestBytes: 0,
          responseBytes: 50,
        },
        {
          containerId: 'ctr_b',
          day,
          hostname: 'b.test',
          statusClass: '2xx',
          requests: 1,
          requestBytes: 1,
          responseBytes: 2,
        },
      ]),
    );
    expect(usage).toHaveLength(3);
    expect(meter.take().usage).toEqual([]);
  });

  it('puts a batch that could not be written back, added to what came since', () => {
    const meter = new GatewayMeter();
    meter.count('ctr_a', 'a.test', 200, 10, 100);
    const failed = meter.take();
    meter.count('ctr_a', 'a.test', 200, 1, 1);
    failed.restore();
    expect(meter.take().usage).toEqual([
      expect.objectContaining({ requests: 2, requestBytes: 11, responseBytes: 101 }),
    ]);
  });

  it('keeps the newest sampled logs of each container, each with an id and a date made at take', () => {
    const meter = new GatewayMeter();
    for (let n = 0; n < KEPT_LOGS_PER_CONTAINER + 5; n++) meter.sample(log('ctr_a', n));
    meter.sample(log('ctr_b', 0));
    const { logs, containers } = meter.take();
    expect(containers.sort()).toEqual(['ctr_a', 'ctr_b']);
    const kept = logs.filter((entry) => entry.containerId === 'ctr_a');
    expect(kept).toHaveLength(KEPT_LOGS_PER_CONTAINER);
    expect(kept.map((entry) => entry.path)).not.toContain('/g/collect?n=4');
    expect(kept.map((entry) => entry.path)).toContain(`/g/collect?n=${KEPT_LOGS_PER_CONTAINER + 4}`);
    expect(new Set(logs.map((entry) => entry.id)).size).toBe(logs.length);
    expect(logs[0].at).toBeInstanceOf(Date);
  });
});
