import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createBuiltinContainer, testGateway, testRuntime, startGatewayOf } from '../helpers/gateway-app.js';

/** A GA4 collection endpoint whose answers take `state.delayMs`: it records the `ep.seq` of every hit it gets. */
async function startCollectionEndpoint() {
  const received = new Map<string, number>();
  const state = { delayMs: 0 };
  const server = http.createServer((req, res) => {
    const seq = new URL(req.url ?? '/', 'http://collect.test').searchParams.get('ep.seq') ?? '';
    req.resume();
    req.on('end', () => {
      received.set(seq, (received.get(seq) ?? 0) + 1);
      setTimeout(() => res.writeHead(204).end(), state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const QUEUE_SIZE = 50;
const HITS = 1200;
const SENDERS = 40;

// Both engines: on nginx the hits reach the runtime through its internal listener, and its 503 comes back through nginx.
describe.each(['node', 'nginx'] as const)(
  'the built-in runtime under a backlog (%s engine): nothing acknowledged is lost',
  (engine) => {
    let t: TestApp;
    let gatewayUrl: string;
    let endpoint: Awaited<ReturnType<typeof startCollectionEndpoint>>;
    let token: string;
    const agent = new Agent({ connections: SENDERS });

    beforeAll(async () => {
      endpoint = await startCollectionEndpoint();
      t = await startTestApp('pglite', {
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        gateway: testGateway({ engine, tlsPort: null }),
        runtime: {
          ...testRuntime(endpoint.origin),
          forwardQueueSize: QUEUE_SIZE,
          forwardConcurrency: 4,
          forwardDrainMs: 10_000,
        },
      });
      gatewayUrl = await startGatewayOf(t, engine);
      token = (await t.tenantWithKey('business')).token;
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await endpoint?.close();
      await agent.close();
    });

    it('answers 503 when the queue is full, delivers every hit it answered 204 and none it refused', async () => {
      const { id, default_hostname: host } = await createBuiltinContainer(t, token, {
        settings: { ga4_measurement_ids: ['G-BACKLOG1'] },
      });
      const acknowledged: string[] = [];
      const refused: string[] = [];
      const others: number[] = [];
      // At every acknowledgement, what the vendor has received plus what the runtime still holds covers what was
      // acknowledged so far (at least once): a snapshot of in-process counters, taken in one synchronous step.
      const shortfalls: Array<{ acknowledged: number; received: number; queued: number }> = [];
      let snapshotsWithBacklog = 0;
      const snapshot = () => {
        const received = acknowledged.filter((seq) => endpoint.received.has(seq)).length;
        const queued = t.app.services.runtime.queued;
        if (queued > 0) snapshotsWithBacklog++;
        if (received + queued < acknowledged.length)
          shortfalls.push({ acknowledged: acknowledged.length, received, queued });
      };
      let next = 0;
      const send = async () => {
        for (let seq = next++; seq < HITS; seq = next++) {
          // The vendor slows down for the middle third of the burst, then recovers.
          endpoint.state.delayMs = seq > HITS / 3 && seq < (2 * HITS) / 3 ? 100 : 0;
          const response = await request(
            `${gatewayUrl}/g/collect?v=2&tid=G-BACKLOG1&cid=1.2&en=page_view&ep.seq=${seq}`,
            {
              headers: { host },
              dispatcher: agent,
            },
          );
          const body = await response.body.text();
          if (response.statusCode === 204) {
            acknowledged.push(String(seq));
            if (seq % 10 === 0) snapshot();
          } else if (response.statusCode === 503) {
            expect(response.headers['retry-after']).toBe('1');
            expect(JSON.parse(body).error.code).toBe('forwarding_backlog');
            refused.push(String(seq));
          } else others.push(response.statusCode);
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, send));
      expect(others).toEqual([]);
      expect(shortfalls).toEqual([]);
      expect(snapshotsWithBacklog, 'snapshots taken while forwards were still held').toBeGreaterThan(0);
      expect(refused.length, 'the burst must fill the queue').toBeGreaterThan(0);
      expect(acknowledged.length).toBeGreaterThan(QUEUE_SIZE);

      await t.app.services.runtime.idle();
      expect([...endpoint.received.keys()].sort()).toEqual([...acknowledged].sort());
      // At least once, not exactly once: an attempt that timed out on a loaded machine may have arrived all the same.

      await t.app.services.runtime.flush();
      const usage = await t.inject({ method: 'GET', url: `/api/containers/${id}/usage/`, token });
      expect(usage.json().runtime.totals).toMatchObject({
        hits_received: acknowledged.length,
        ga4_forwarded: acknowledged.length,
        forwards_failed: 0,
        hits_refused: refused.length,
      });
    });

    it('keeps held forwards through a stop: they are delivered within the drain, not dropped', async () => {
      const { default_hostname: host } = await createBuiltinContainer(t, token, {
        settings: { ga4_measurement_ids: ['G-BACKLOG1'] },
      });
      endpoint.state.delayMs = 200;
      const before = endpoint.received.size;
      const statuses = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const response = await request(
            `${gatewayUrl}/g/collect?v=2&tid=G-BACKLOG1&cid=1.2&en=page_view&ep.seq=stop-${index}`,
            { headers: { host }, dispatcher: agent },
          );
          await response.body.dump();
          return response.statusCode;
        }),
      );
      expect(statuses.every((status) => status === 204)).toBe(true);
      expect(t.app.services.runtime.queued).toBeGreaterThan(0);
      await t.app.services.runtime.stop();
      expect(endpoint.received.size).toBe(before + 20);
      expect(t.app.services.runtime.ready).toBe(false);
    });
  },
);
