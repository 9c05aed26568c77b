import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/lib/ids.js';
import type { EventLog } from '../../../src/modules/events/service.js';
import { findScanById, reserveScan } from '../../../src/modules/tracking-checker/queries.js';
import { ScanWorker } from '../../../src/modules/tracking-checker/worker.js';
import type { Scanner } from '../../../src/scanner/index.js';
import type { ScanResult } from '../../../src/scanner/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const RESULT = {
  url: 'https://shop.example/',
  final_url: 'https://shop.example/',
  trackers: [],
} as unknown as ScanResult;

describe.each(backends)('the scan job on %s', (backend) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenantId = (await t.tenantWithKey('pro')).tenantId;
  }, 60_000);
  afterAll(() => t?.close());

  it('keeps a scan that ran completed when announcing it fails: the job fails (and is retried), the scan does not', async () => {
    const scanId = newId('scan');
    const reservation = await reserveScan(
      t.database.db,
      {
        id: scanId,
        tenantId,
        apiKeyId: null,
        url: 'https://shop.example/',
        language: 'en',
        options: { ai_summary: false, pagespeed: false },
        status: 'queued',
      },
      10,
    );
    expect(reservation.reserved).toBe(true);
    const published: string[] = [];
    const events = {
      record: async (_tenant: string, type: string) => {
        published.push(type);
        throw new Error('the job engine is not started');
      },
    } as unknown as EventLog;
    const scanner = { scan: async () => RESULT } as unknown as Scanner;
    const worker = new ScanWorker({ database: t.database, scanner, events }, { log: { warn: () => {} } });

    await expect(worker.run({ scanId, waited: false })).rejects.toThrow('the job engine is not started');
    expect((await findScanById(t.database.db, scanId))?.status).toBe('completed');
    expect(published).toEqual(['tracking_checker.scan.completed']);
  });
});
