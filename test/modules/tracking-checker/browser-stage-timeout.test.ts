import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Scanner } from '../../../src/scanner/index.js';
import { startTestApp } from '../../helpers/app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';

const SCAN = '/api/v1/tracking-checker/scan/';

/**
 * A cold browser: real Chromium behind a start-up delay longer than the scan's whole time limit, so the browser stage
 * produces nothing (the stage's time is used up before a page can open) while the HTTP fetch runs as usual.
 */
function slowChromium(): { path: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cold-chromium-'));
  const file = path.join(dir, 'chromium');
  fs.writeFileSync(file, '#!/bin/sh\nsleep 6\nexec /usr/lib/chromium/chromium "$@"\n', { mode: 0o755 });
  return { path: file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const remaining = (headers: Record<string, unknown>) => /"scan-hourly";r=(\d+)/.exec(String(headers.ratelimit))?.[1];
const limit = (headers: Record<string, unknown>) =>
  /"scan-hourly";q=(\d+)/.exec(String(headers['ratelimit-policy']))?.[1];
const durationsIn = (text: string) => [...text.matchAll(/(-?\d+) ms/g)].map((match) => Number(match[1]));

/** An app whose scanner starts its browser cold (a new one per test), with the scan limit far below the start-up. */
async function coldScannerApp(ca: string[]) {
  const chromium = slowChromium();
  const scanner = new Scanner({
    chromiumPath: chromium.path,
    allowPrivateNetworks: true,
    extraCaCertificates: ca,
    scanTimeoutMs: 2_000,
    observationCapMs: 1_000,
  });
  const t = await startTestApp('pglite', { runWorkers: false }, undefined, { scanner });
  const { token, tenantId } = await t.tenantWithKey('agency');
  return {
    /** The slots in use as the quota counts them in the database. */
    slotsUsed: async () => {
      const quota = await t.app.services.trackingChecker.quota(tenantId);
      return quota.limit - quota.remaining;
    },
    scan: (payload: object) => t.inject({ method: 'POST', url: SCAN, token, payload }),
    read: (id: string) => t.inject({ method: 'GET', url: `/api/v1/tracking-checker/scans/${id}/`, token }),
    async close() {
      await t.close();
      await scanner.close();
      chromium.remove();
    },
  };
}

describe('a scan whose browser stage produced nothing is never a clean result', () => {
  let silent: Awaited<ReturnType<typeof startHttpsTarget>>;
  let plain: Awaited<ReturnType<typeof startHttpsTarget>>;
  let cold: Awaited<ReturnType<typeof coldScannerApp>> | undefined;

  beforeAll(async () => {
    silent = await startHttpsTarget(() => 'hang');
    plain = await startHttpsTarget(() => ({
      status: 200,
      body: '<!doctype html><html><head><title>Plain</title></head><body><p>A page.</p></body></html>',
    }));
  });
  afterEach(async () => {
    await cold?.close();
    cold = undefined;
  });
  afterAll(async () => {
    await silent?.close();
    await plain?.close();
  });

  it('a page that never answers, with every stage timed out, fails with the reason and gives its slot back', async () => {
    cold = await coldScannerApp([silent.ca]);
    const first = await cold.scan({ url: silent.url('/') });
    expect(first.statusCode, first.body).toBe(422);
    const body = first.json();
    expect(body.error.code).toBe('target_unreachable');
    expect(body.error.message).toMatch(/time limit/i);
    for (const ms of durationsIn(body.error.message)) expect(ms, body.error.message).toBeGreaterThanOrEqual(0);
    expect((await cold.read(body.error.details.scan_id)).json().status).toBe('failed');

    // The failed scan did not use up a slot.
    expect(remaining(first.headers)).toBe(limit(first.headers));
    expect(await cold.slotsUsed()).toBe(0);
  }, 90_000);

  it('a page whose HTML came but whose browser stage timed out is partial with the reason, never "no trackers found"', async () => {
    cold = await coldScannerApp([plain.ca]);
    const first = await cold.scan({ url: plain.url('/'), ai_summary: true });
    expect(first.statusCode, first.body).toBe(200);
    const result = first.json();
    expect(result.stages.browser.status).toBe('timeout');
    expect(result.partial).toMatchObject({ code: 'browser_timeout', message: expect.any(String) });
    expect(result.ai_summary.text).not.toMatch(/No trackers were found on/);
    expect(result.ai_summary.text).toMatch(/browser stage did not complete/);
    for (const warning of result.warnings) {
      for (const ms of durationsIn(warning.message)) expect(ms, warning.message).toBeGreaterThanOrEqual(0);
    }
    expect((await cold.read(result.scan_id)).json()).toMatchObject({ status: 'completed', partial: result.partial });

    // A partial scan gives its slot back too.
    expect(remaining(first.headers)).toBe(limit(first.headers));
    expect(await cold.slotsUsed()).toBe(0);
  }, 90_000);
});
