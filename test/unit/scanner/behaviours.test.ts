import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { detectBehaviours, isFingerprint } from '../../../src/scanner/behaviours.js';
import type { RuntimeRequest } from '../../../src/scanner/browser.js';

// Issue 15, item 13: the decisions of behaviours.ts on hand-made browser findings (the end-to-end cases are in
// test/scanner/behaviours.test.ts).

const request = (url: string, extra: Partial<RuntimeRequest> = {}): RuntimeRequest => ({
  url,
  method: 'GET',
  resourceType: 'image',
  status: 200,
  failure: null,
  frameUrl: null,
  atMs: 0,
  postData: null,
  ...extra,
});

const canvas = { script: 'https://fp.example/fp.js', method: 'toDataURL' as const, displayed: false };

describe('canvas fingerprinting criteria', () => {
  it('needs a 16×16 canvas, 10 distinct characters or 2 styles, and no save/restore/listener', () => {
    expect(isFingerprint({ ...canvas, width: 240, height: 60, characters: 12, colours: 1 })).toBe(true);
    expect(isFingerprint({ ...canvas, width: 240, height: 60, characters: 3, colours: 2 })).toBe(true);
    expect(isFingerprint({ ...canvas, width: 240, height: 60, characters: 9, colours: 1 })).toBe(false);
    expect(isFingerprint({ ...canvas, width: 15, height: 60, characters: 30, colours: 3 })).toBe(false);
    expect(isFingerprint({ ...canvas, width: 240, height: 60, characters: 30, colours: 3, displayed: true })).toBe(
      false,
    );
  });
});

describe('keystroke capture', () => {
  const typed = { values: ['tgp0123456789', 'tgp0123456789@example.org'], fields: 2 };
  const finalUrl = 'https://www.site.example/';

  it('finds the typed e-mail hashed with MD5 in a POST body, and ignores requests without a response', () => {
    const md5 = createHash('md5').update('tgp0123456789@example.org').digest('hex');
    const behaviours = detectBehaviours({
      finalUrl,
      typed,
      requests: [
        request('https://collect.example/e', { method: 'POST', postData: `{"em":"${md5}"}` }),
        request('https://dropped.example/k?v=tgp0123456789', { status: null, failure: 'net::ERR_FAILED' }),
      ],
    });
    expect(behaviours).toEqual([
      {
        type: 'keystroke_capture',
        vendor_or_host: 'collect.example',
        first_party: false,
        evidence: [
          {
            kind: 'typed_value_sent',
            url: 'https://collect.example/e',
            detail: 'POST request carried the value typed into a field (MD5), without a submit',
          },
        ],
      },
    ]);
  });

  it('shows each encoding the value left in before repeats of one, when the evidence is cut short', () => {
    const partial = (n: number) => request(`https://collect.example/k?v=tgp0123456789${'@example.org'.slice(0, n)}`);
    const base64 = Buffer.from('tgp0123456789@example.org').toString('base64');
    const requests = [
      ...[1, 2, 3, 4, 5, 6].map(partial),
      request(`https://collect.example/k?v=${encodeURIComponent('tgp0123456789@example.org')}`),
      request('https://collect.example/b', { method: 'POST', postData: `{"d":"${base64}"}` }),
    ];
    const [found] = detectBehaviours({ finalUrl, typed, requests });
    expect(found.evidence.map((evidence) => evidence.detail.match(/\((.+)\)/)![1])).toEqual([
      'plain',
      'URL-encoded',
      'base64',
      'plain',
      'plain',
    ]);
  });

  it('reports nothing when no field was typed into', () => {
    const requests = [request('https://collect.example/k?v=tgp0123456789')];
    expect(detectBehaviours({ finalUrl, typed: { ...typed, fields: 0 }, requests })).toEqual([]);
  });
});

describe('session recording', () => {
  it('reports Yandex Webvisor only from its recording endpoint, not from tag.js alone', () => {
    const tag = request('https://mc.yandex.ru/metrika/tag.js', { resourceType: 'script' });
    expect(detectBehaviours({ finalUrl: 'https://a.example/', requests: [tag] })).toEqual([]);
    const found = detectBehaviours({
      finalUrl: 'https://a.example/',
      requests: [tag, request('https://mc.yandex.ru/webvisor/12345678?wv-type=0', { method: 'POST' })],
    });
    expect(found.map((item) => [item.type, item.vendor_or_host, item.evidence.map((e) => e.kind)])).toEqual([
      ['session_recording', 'Yandex Metrica Webvisor', ['recording_hit']],
    ]);
  });
});

describe('remarketing audiences', () => {
  it('reads the Meta Pixel id from a POSTed /tr hit and the Google Ads id from a 1p-user-list ping', () => {
    const found = detectBehaviours({
      finalUrl: 'https://a.example/',
      requests: [
        request('https://www.facebook.com/tr/', { method: 'POST', postData: 'id=111222333444555&ev=PageView' }),
        request('https://www.google.com/pagead/1p-user-list/123456789/?random=1'),
      ],
    });
    expect(found.map((item) => [item.vendor_or_host, item.ids])).toEqual([
      ['Meta Pixel', ['111222333444555']],
      ['Google Ads', ['AW-123456789']],
    ]);
  });
});
