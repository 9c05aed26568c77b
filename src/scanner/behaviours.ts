import { createHash } from 'node:crypto';
import type { RuntimeFindings, RuntimeRequest } from './browser.js';
import type { CanvasReadback, TypedSentinel } from './behaviours-page.js';
import { registrableDomain } from './detect/registrable-domain.js';
import type { Behaviour, BehaviourEvidence } from './schema-behaviours.js';

/**
 * Behaviours The Markup's Blacklight reports, from what the page did in the browser stage: canvas fingerprinting,
 * keystroke capture, session recording and remarketing audiences. Only requests that got a response count.
 */

const MAX_EVIDENCE = 5;
const MAX_URL = 300;

/** Blacklight's thresholds (Englehardt & Narayanan 2016): big enough, enough text or colours, read back, not shown. */
const MIN_CANVAS_SIDE = 16;
const MIN_CHARACTERS = 10;
const MIN_COLOURS = 2;

export function detectBehaviours(
  runtime: Pick<RuntimeFindings, 'finalUrl' | 'requests' | 'canvasReadbacks' | 'typed'>,
): Behaviour[] {
  const answered = runtime.requests.filter((request) => request.status !== null);
  const site = siteOf(runtime.finalUrl);
  return [
    ...canvasFingerprinting(runtime.canvasReadbacks ?? [], runtime.finalUrl, site),
    ...keystrokeCapture(answered, runtime.typed, site),
    ...sessionRecording(answered),
    ...remarketingAudiences(answered),
  ];
}

function siteOf(url: string): string | null {
  try {
    return registrableDomain(new URL(url).hostname);
  } catch {
    return null;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url.slice(0, 100);
  }
}

const short = (url: string) => (url.length > MAX_URL ? `${url.slice(0, MAX_URL - 1)}…` : url);

/** Groups evidence by a key, keeping at most MAX_EVIDENCE items each. */
function grouped<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

export function isFingerprint(read: CanvasReadback): boolean {
  return (
    read.width >= MIN_CANVAS_SIDE &&
    read.height >= MIN_CANVAS_SIDE &&
    (read.characters >= MIN_CHARACTERS || read.colours >= MIN_COLOURS) &&
    !read.displayed
  );
}

function canvasFingerprinting(reads: CanvasReadback[], pageUrl: string, site: string | null): Behaviour[] {
  const byScript = grouped(reads.filter(isFingerprint), (read) => read.script ?? pageUrl);
  return [...byScript].map(([script, list]) => {
    const host = hostOf(script);
    return {
      type: 'canvas_fingerprinting',
      vendor_or_host: host,
      first_party: siteOf(script) === site,
      evidence: list.slice(0, MAX_EVIDENCE).map((read) => ({
        kind: 'canvas_readback',
        url: short(script),
        detail: `${read.method} of a ${read.width}×${read.height} canvas after drawing ${read.characters} distinct characters in ${read.colours} styles`,
      })),
    };
  });
}

/**
 * The forms a typed value takes in requests: hashes, base64, URL-encoded and plain, the most specific first (values
 * are given longest first, so the e-mail is named before the token it contains).
 */
export function sentinelForms(values: string[]): Array<{ form: string; encoding: string }> {
  const forms: Array<{ form: string; encoding: string }> = [];
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    for (const algorithm of ['sha256', 'sha1', 'md5']) {
      forms.push({ form: createHash(algorithm).update(value).digest('hex'), encoding: algorithm.toUpperCase() });
    }
    forms.push({ form: Buffer.from(value).toString('base64').replace(/=+$/, ''), encoding: 'base64' });
    forms.push({ form: Buffer.from(value).toString('base64url'), encoding: 'base64' });
    if (encodeURIComponent(value) !== value) forms.push({ form: encodeURIComponent(value), encoding: 'URL-encoded' });
    forms.push({ form: value, encoding: 'plain' });
  }
  return forms;
}

function keystrokeCapture(requests: RuntimeRequest[], typed: TypedSentinel | undefined, site: string | null) {
  if (!typed?.fields) return [];
  const forms = sentinelForms(typed.values);
  const hits = requests.flatMap((request) => {
    const haystack = `${request.url}\n${request.postData ?? ''}`;
    const haystackLower = haystack.toLowerCase();
    const found = forms.find(({ form }) => haystack.includes(form) || haystackLower.includes(form.toLowerCase()));
    return found ? [{ request, encoding: found.encoding }] : [];
  });
  return [...grouped(hits, (hit) => hostOf(hit.request.url))].map(
    ([host, list]): Behaviour => ({
      type: 'keystroke_capture',
      vendor_or_host: host,
      first_party: siteOf(`https://${host}/`) === site,
      evidence: eachEncodingFirst(list)
        .slice(0, MAX_EVIDENCE)
        .map(({ request, encoding }) => ({
          kind: 'typed_value_sent',
          url: short(request.url),
          detail: `${request.method} request carried the value typed into a field (${encoding}), without a submit`,
        })),
    }),
  );
}

/**
 * The first request of each encoding, in order, before any repeat: a recorder that sends every keystroke fills the
 * evidence with one encoding otherwise, hiding the others the value also left in.
 */
function eachEncodingFirst<Hit extends { encoding: string }>(hits: Hit[]): Hit[] {
  const seen = new Set<string>();
  const [firsts, repeats] = [[] as Hit[], [] as Hit[]];
  for (const hit of hits) {
    (seen.has(hit.encoding) ? repeats : firsts).push(hit);
    seen.add(hit.encoding);
  }
  return [...firsts, ...repeats];
}

interface RecorderRule {
  vendor: string;
  /** Matched against host + path of the recorder script. */
  script: RegExp;
  /** Matched against host + path of the requests that carry recording data. */
  recording: RegExp;
}

/** Session-replay vendors, from their documented install snippets and collection endpoints. */
export const RECORDER_RULES: RecorderRule[] = [
  {
    vendor: 'Hotjar',
    script: /^(static|script)\.hotjar\.com\//,
    recording: /^((in|vc|ws\d*|content)\.hotjar\.(com|io))\//,
  },
  {
    vendor: 'FullStory',
    script: /^(edge\.)?fullstory\.com\/s\/fs\.js/,
    recording: /^(rs\.)?fullstory\.com\/rec\//,
  },
  {
    vendor: 'Microsoft Clarity',
    script: /^(www|scripts)\.clarity\.ms\//,
    recording: /^([a-z]\.)?clarity\.ms\/collect/,
  },
  {
    vendor: 'LogRocket',
    script: /^cdn\.(logrocket\.(io|com)|lr-ingest\.(io|com)|lr-in\.com|lgrckt-in\.com)\//,
    recording: /^(r\.(logrocket\.io|lr-ingest\.(io|com)|lr-in\.com|lgrckt-in\.com)|[a-z0-9-]+\.lr-in-prod\.com)\/i/,
  },
  {
    vendor: 'Smartlook',
    script: /^(web-sdk|rec)\.smartlook\.com\//,
    recording: /^([a-z0-9-]+\.)?(smartlook\.cloud|smartlook\.com)\/rec\//,
  },
  { vendor: 'Mouseflow', script: /^cdn\.mouseflow\.com\//, recording: /^[a-z]\d*\.mouseflow\.com\// },
  {
    vendor: 'Yandex Metrica Webvisor',
    script: /^mc\.yandex\.(ru|com)\/metrika\/(tag|watch)\.js.*/,
    recording: /^mc\.yandex\.(ru|com)\/webvisor\//,
  },
  { vendor: 'Inspectlet', script: /^cdn\.inspectlet\.com\//, recording: /^hn\.inspectlet\.com\// },
  { vendor: 'Lucky Orange', script: /^tools\.luckyorange\.com\//, recording: /^[a-z0-9-]+\.luckyorange\.net\// },
  {
    vendor: 'Contentsquare',
    script: /^t\.contentsquare\.net\/uxa\//,
    recording: /^[a-z0-9-]+\.contentsquare\.net\/(v2\/)?recording/,
  },
];

function hostPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.pathname}`;
  } catch {
    return '';
  }
}

function sessionRecording(requests: RuntimeRequest[]): Behaviour[] {
  return RECORDER_RULES.flatMap((rule) => {
    const evidence: BehaviourEvidence[] = [];
    for (const request of requests) {
      const target = hostPath(request.url);
      // Yandex Metrica's tag.js records only with webvisor on: the script alone proves nothing.
      const script = rule.vendor !== 'Yandex Metrica Webvisor' && rule.script.test(target);
      const recording = rule.recording.test(target);
      if (script || recording) {
        evidence.push({
          kind: recording ? 'recording_hit' : 'recorder_script',
          url: short(request.url),
          detail: recording ? `${rule.vendor} received recording data` : `${rule.vendor}'s recorder script loaded`,
        });
      }
    }
    if (!evidence.length) return [];
    evidence.sort((a, b) => Number(b.kind === 'recording_hit') - Number(a.kind === 'recording_hit'));
    return [{ type: 'session_recording', vendor_or_host: rule.vendor, evidence: evidence.slice(0, MAX_EVIDENCE) }];
  });
}

const META_HIT = /^(www\.)?facebook\.com\/tr\/?$/;
const GOOGLE_AUDIENCE =
  /^(googleads\.g\.doubleclick\.net|www\.google\.[a-z.]+)\/pagead\/(viewthroughconversion|1p-user-list)\/(\d+)/;

function remarketingAudiences(requests: RuntimeRequest[]): Behaviour[] {
  const meta = { ids: new Set<string>(), evidence: [] as BehaviourEvidence[] };
  const google = { ids: new Set<string>(), evidence: [] as BehaviourEvidence[] };
  for (const request of requests) {
    const target = hostPath(request.url);
    if (META_HIT.test(target)) {
      const params = new URLSearchParams(`${new URL(request.url).search}&${request.postData ?? ''}`);
      const id = params.get('id');
      if (!id) continue;
      meta.ids.add(id);
      meta.evidence.push({
        kind: 'audience_hit',
        url: short(request.url),
        detail: `Meta Pixel ${id} sent ${params.get('ev') ?? 'an event'}, which builds custom audiences`,
      });
      continue;
    }
    const match = GOOGLE_AUDIENCE.exec(target);
    if (match) {
      google.ids.add(`AW-${match[3]}`);
      google.evidence.push({
        kind: 'audience_hit',
        url: short(request.url),
        detail: `Google Ads ${match[2] === '1p-user-list' ? 'first-party user list' : 'remarketing'} hit for AW-${match[3]}`,
      });
    }
  }
  const entries: Array<[string, typeof meta]> = [
    ['Meta Pixel', meta],
    ['Google Ads', google],
  ];
  return entries
    .filter(([, found]) => found.evidence.length)
    .map(([vendor, found]) => ({
      type: 'remarketing_audience',
      vendor_or_host: vendor,
      ids: [...found.ids],
      evidence: found.evidence.slice(0, MAX_EVIDENCE),
    }));
}
