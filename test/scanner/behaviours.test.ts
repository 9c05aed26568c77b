import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ScanResultSchema, type Behaviour, type ScanResult } from '../../src/scanner/index.js';
import { I15D_IDS } from '../fixtures/scanner/pages-i15d.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, item 13, end to end in Chromium: canvas fingerprinting, keystroke capture, session recording and
// remarketing audiences, each against a look-alike that is not it (fixtures/scanner/pages-i15d.ts).

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 5_000 });

async function behavioursOf(host: string): Promise<Behaviour[]> {
  const result: ScanResult = await setup.scanner.scan({
    url: setup.fixture.url(host, '/'),
    aiSummary: false,
    pagespeed: false,
    language: 'en',
  });
  expect([...Value.Errors(ScanResultSchema, result)].slice(0, 5)).toEqual([]);
  expect(result.behaviours).toBeDefined();
  return result.behaviours ?? [];
}

const ofType = (behaviours: Behaviour[], type: Behaviour['type']) => behaviours.filter((item) => item.type === type);

describe('canvas fingerprinting', () => {
  it('reports the script that draws text in two colours and reads the canvas back', async () => {
    const found = ofType(await behavioursOf('www.i15d-canvas.test'), 'canvas_fingerprinting');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ vendor_or_host: 'cdn.i15d-fp.test', first_party: false });
    expect(found[0].evidence[0]).toMatchObject({ kind: 'canvas_readback' });
    expect(found[0].evidence[0].url).toBe('https://cdn.i15d-fp.test/fp.js');
    expect(found[0].evidence[0].detail).toContain('toDataURL of a 240×60 canvas');
  });

  it('does not report a chart drawn with save/restore nor an 8×8 favicon badge', async () => {
    expect(ofType(await behavioursOf('www.i15d-chart.test'), 'canvas_fingerprinting')).toEqual([]);
  });
});

describe('keystroke capture', () => {
  it('reports the hosts that received typed values before any submit, in each encoding', async () => {
    const found = ofType(await behavioursOf('www.i15d-keylogger.test'), 'keystroke_capture');
    const byHost = Object.fromEntries(found.map((item) => [item.vendor_or_host, item]));
    expect(Object.keys(byHost).sort()).toEqual(['collect.i15d-keys.test', 'www.i15d-keylogger.test']);
    expect(byHost['collect.i15d-keys.test'].first_party).toBe(false);
    expect(byHost['www.i15d-keylogger.test'].first_party).toBe(true);
    const details = found.flatMap((item) => item.evidence.map((evidence) => evidence.detail)).join('\n');
    expect(details).toContain('(URL-encoded)');
    expect(details).toContain('(base64)');
    expect(details).toContain('(SHA256)');
  });

  it('does not report a form that sends its values only on submit', async () => {
    expect(ofType(await behavioursOf('www.i15d-form.test'), 'keystroke_capture')).toEqual([]);
  });
});

describe('session recording and remarketing audiences', () => {
  it('reports Hotjar and LogRocket with their recording hits', async () => {
    const found = ofType(await behavioursOf('www.i15d-replay.test'), 'session_recording');
    expect(found.map((item) => item.vendor_or_host).sort()).toEqual(['Hotjar', 'LogRocket']);
    for (const item of found) {
      expect(item.evidence.map((evidence) => evidence.kind).sort()).toEqual(['recorder_script', 'recording_hit']);
    }
    const hotjar = found.find((item) => item.vendor_or_host === 'Hotjar');
    expect(hotjar?.evidence[0].url).toContain('in.hotjar.com');
  });

  it('reports the Meta Pixel and Google Ads audiences with their ids', async () => {
    const found = ofType(await behavioursOf('www.i15d-remarketing.test'), 'remarketing_audience');
    const byVendor = Object.fromEntries(found.map((item) => [item.vendor_or_host, item]));
    expect(Object.keys(byVendor).sort()).toEqual(['Google Ads', 'Meta Pixel']);
    expect(byVendor['Meta Pixel'].ids).toEqual([I15D_IDS.pixel]);
    expect(byVendor['Meta Pixel'].evidence.map((evidence) => evidence.detail).join(' ')).toMatch(
      /PageView[\s\S]*ViewContent/,
    );
    expect(byVendor['Google Ads'].ids).toEqual([`AW-${I15D_IDS.ads}`]);
  });

  it('reports nothing for Metrica without Webvisor, a pixel waiting for consent and an unanswered Ads hit', async () => {
    expect(await behavioursOf('www.i15d-quiet.test')).toEqual([]);
  });
});
