import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationBus, type Invalidation } from '../../src/db/invalidation.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';

// Invalidations published together travel in few NOTIFYs (one in flight at a time, each under PostgreSQL's 8,000-byte
// payload limit), and another instance still receives every one of them.

describe.each(backends)('invalidation bus on %s', (backend) => {
  let testDatabase: TestDatabase;
  let other: Database;
  let publisher: InvalidationBus;
  let receiver: InvalidationBus;
  const received: Invalidation[] = [];
  const payloads: string[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase(backend);
    // Another instance: its own pool and LISTEN connection on PostgreSQL; PGlite serves one process.
    other =
      backend === 'postgres'
        ? await openDatabase({ databaseUrl: testDatabase.url!, pgliteDataDir: '', poolSize: 2 })
        : testDatabase.database;
    const counting: Database = {
      ...testDatabase.database,
      notify: (channel, payload) => {
        payloads.push(payload);
        return testDatabase.database.notify(channel, payload);
      },
    };
    publisher = new InvalidationBus(counting);
    receiver = new InvalidationBus(other);
    receiver.subscribe((invalidation) => received.push(invalidation));
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    if (other !== testDatabase?.database) await other?.close();
    await testDatabase?.drop();
  });

  it('sends 300 invalidations published at once in a few NOTIFYs, and the other instance receives all', async () => {
    const sent = Array.from({ length: 300 }, (_, index) => ({
      kind: 'tenant',
      id: `ten_batch${String(index).padStart(20, '0')}`,
    }));
    const local: Invalidation[] = [];
    publisher.subscribe((invalidation) => local.push(invalidation));
    await Promise.all(sent.map((invalidation) => publisher.publish(invalidation)));
    expect(local).toEqual(sent); // delivered locally at once, in order
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads.length).toBeLessThan(20);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    const deadline = Date.now() + 10_000;
    while (received.length < sent.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(new Set(received.map((invalidation) => invalidation.id))).toEqual(new Set(sent.map((item) => item.id)));
  });

  it('still understands a single invalidation (an instance of the previous version)', async () => {
    received.length = 0;
    await testDatabase.database.notify('tagport_invalidate', JSON.stringify({ kind: 'api_key', id: 'key_single' }));
    const deadline = Date.now() + 10_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toEqual([{ kind: 'api_key', id: 'key_single' }]);
  });
});
