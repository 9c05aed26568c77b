import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containers, outgoingLog } from '../../../src/db/schema.js';
import type { OutgoingRecord } from '../../../src/gateway/runtime/outgoing.js';
import { OutgoingLogWriter } from '../../../src/modules/outgoing-log/writer.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=abcdefghij').toString('base64');

describe.each(backends)('the outgoing log writer on %s', (backend) => {
  let t: TestApp;
  const containerId = 'ctr_writer0000000000000000000';

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    const { tenantId } = await t.tenantWithKey('pro');
    await t.database.db.insert(containers).values({
      id: containerId,
      tenantId,
      name: 'web',
      region: 'eu-central',
      status: 'running',
      config: CONFIG,
      defaultHostname: 'writer.containers.test',
    });
  }, 60_000);
  afterAll(() => t?.close());

  const record = (eventName: string): OutgoingRecord => ({
    containerId,
    vendor: 'ga4',
    destination: 'ga4 G-ABC123',
    eventName,
    eventId: null,
    request: { measurement_id: 'G-ABC123' },
    status: 'delivered',
    httpStatus: null,
    error: null,
    attempts: 1,
    latencyMs: 3,
    at: new Date(),
    conversion: false,
  });

  it('keeps the newest rows when more arrive than it holds, counts the dropped ones and says so', async () => {
    const warnings: object[] = [];
    const writer = new OutgoingLogWriter(t.database.db, {
      flushIntervalMs: 60_000,
      maxBuffered: 3,
      onError: (error) => {
        throw error;
      },
      log: { warn: (object) => void warnings.push(object) },
    });
    for (const name of ['one', 'two', 'three', 'four', 'five']) writer.record(record(name));
    expect(writer.dropped).toBe(2);
    await writer.flush();
    const rows = await t.database.db.select().from(outgoingLog);
    expect(rows.map((row) => row.eventName).sort()).toEqual(['five', 'four', 'three']);
    expect(warnings).toEqual([{ dropped: 2, droppedTotal: 2 }]);
  });

  it('samples delivered forwards beyond the per-second budget, but keeps every failure and conversion', async () => {
    let now = Date.parse('2026-11-28T10:00:00.100Z');
    const writer = new OutgoingLogWriter(t.database.db, {
      flushIntervalMs: 60_000,
      maxBuffered: 100,
      deliveredPerSecond: 2,
      now: () => now,
      onError: (error) => {
        throw error;
      },
    });
    await t.database.db.delete(outgoingLog);
    for (const name of ['view-1', 'view-2', 'view-3', 'view-4']) writer.record(record(name));
    writer.record({ ...record('checkout'), eventId: 'order-9', conversion: true });
    writer.record({ ...record('view-failed'), status: 'failed', error: 'GA4 answered 400', httpStatus: 400 });
    now += 1000;
    writer.record(record('next-second'));
    await writer.flush();
    const rows = await t.database.db.select().from(outgoingLog);
    expect(rows.map((row) => row.eventName).sort()).toEqual([
      'checkout',
      'next-second',
      'view-1',
      'view-2',
      'view-failed',
    ]);
    expect(writer.sampledOut).toBe(2);
    expect(writer.dropped).toBe(0);
  });

  it('writes every column of a batch as given, nulls and JSON included', async () => {
    const writer = new OutgoingLogWriter(t.database.db, {
      flushIntervalMs: 60_000,
      maxBuffered: 10,
      onError: () => {},
    });
    const at = new Date('2026-11-27T10:00:00.123Z');
    const failed: OutgoingRecord = {
      ...record('purchase'),
      vendor: 'meta',
      destination: 'meta 1234567890123456',
      eventId: 'order-1 "quoted" ü',
      request: { event_name: 'Purchase', custom_data: { value: 49.9, contents: [{ id: 'SKU-1' }] } },
      status: 'failed',
      httpStatus: 400,
      error: 'Invalid parameter',
      attempts: 2,
      latencyMs: null,
      at,
    };
    writer.record(failed);
    writer.record(record('page_view'));
    await writer.flush();
    const rows = await t.database.db.select().from(outgoingLog);
    const { id, ...stored } = rows.find((row) => row.eventName === 'purchase')!;
    expect(id).toMatch(/^out_/);
    const { conversion: _conversion, ...written } = failed;
    expect(stored).toEqual({ ...written, containerId });
    expect(rows.find((row) => row.eventName === 'page_view')).toMatchObject({ eventId: null, httpStatus: null });
  });

  it('writes on its own about once an interval, and counts a batch the database refused as dropped', async () => {
    const errors: unknown[] = [];
    const writer = new OutgoingLogWriter(t.database.db, {
      flushIntervalMs: 20,
      maxBuffered: 100,
      onError: (error) => void errors.push(error),
    });
    writer.record(record('timed'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const timed = await t.database.db.select().from(outgoingLog);
    expect(timed.some((row) => row.eventName === 'timed')).toBe(true);
    writer.record({ ...record('orphan'), containerId: 'ctr_gone0000000000000000000000' });
    await writer.flush();
    expect(writer.dropped).toBe(1);
    expect(errors).toHaveLength(1);
  });
});
