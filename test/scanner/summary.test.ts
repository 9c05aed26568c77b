import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXTS } from '../../src/scanner/i18n.js';
import { estimateLoss } from '../../src/scanner/loss.js';
import { LANGUAGES, type Tracker } from '../../src/scanner/schema.js';
import {
  BuiltinSummaryProvider,
  OpenAiCompatibleProvider,
  SummaryProviderError,
  type SummaryFindings,
} from '../../src/scanner/summary.js';

const tracker = (
  key: string,
  name: string,
  vendor: string,
  category: Tracker['category'],
  fires: boolean | null,
  extra: Partial<Tracker> = {},
): Tracker => ({
  key,
  name,
  vendor,
  category,
  ids: [],
  evidence: [],
  first_party: false,
  server_side: false,
  fires_before_consent: fires,
  ...extra,
});

function findings(overrides: Partial<SummaryFindings> = {}): SummaryFindings {
  const trackers = [
    tracker('google_tag_manager', 'Google Tag Manager', 'Google', 'tag_manager', false, { ids: ['GTM-TEST123'] }),
    tracker('google_analytics_4', 'Google Analytics 4', 'Google', 'analytics', true, { ids: ['G-TEST4567'] }),
    tracker('meta_pixel', 'Meta Pixel', 'Meta', 'advertising', true, { ids: ['123456789012345'] }),
  ];
  return {
    url: 'https://shop.example.test/',
    final_url: 'https://shop.example.test/',
    trackers,
    consent: {
      cmp: { name: 'Cookiebot', evidence: [] },
      tcf_api: false,
      consent_mode: {
        detected: true,
        version: 'v2',
        mode: 'advanced',
        defaults: {
          ad_storage: 'denied',
          analytics_storage: 'denied',
          ad_user_data: 'denied',
          ad_personalization: 'denied',
        },
        gcs: 'G100',
      },
      banner_detected: true,
      tags_before_consent: [
        {
          key: 'google_analytics_4',
          name: 'Google Analytics 4',
          requests: 2,
          first_url: 'https://region1.google-analytics.com/g/collect?v=2',
          cookieless: true,
        },
        {
          key: 'meta_pixel',
          name: 'Meta Pixel',
          requests: 3,
          first_url: 'https://connect.facebook.net/en_US/fbevents.js',
          cookieless: false,
        },
      ],
    },
    server_side_tagging: { detected: false, evidence: [], endpoints: [] },
    loss_estimate: estimateLoss({ trackers, consentMechanism: true, language: 'en' }),
    pagespeed: {
      score: 42,
      metrics: { fcp_ms: 2100, lcp_ms: 4830, tbt_ms: 612, cls: 0.12, si_ms: 3900 },
      lighthouse_version: '12.8.2',
    },
    ...overrides,
  };
}

const builtin = new BuiltinSummaryProvider(() => 'example.test');

describe('builtin summary', () => {
  it('writes German from the findings', async () => {
    const summary = await builtin.summarize(findings(), 'de');
    expect(summary).toMatchObject({ provider: 'builtin', language: 'de' });
    expect(summary.text).toBe(
      [
        '2 Tracker auf shop.example.test gefunden: Google Analytics 4 und Meta Pixel.',
        'Tag-Management: Google Tag Manager.',
        'Consent-Management-Plattform: Cookiebot.',
        'Google Consent Mode v2 ist aktiv im erweiterten Modus (Standard: analytics_storage abgelehnt, ad_storage abgelehnt).',
        '2 Tracker haben vor jeder Einwilligung Anfragen gesendet: Google Analytics 4 und Meta Pixel.',
        'Google Analytics 4 hat nur cookielose Consent-Mode-Pings gesendet.',
        'Kein serverseitiges Tagging erkannt: Die Tags senden Daten direkt an die Anbieter.',
        'Geschätzter Datenverlust: etwa 28,2 % der Analytics-Ereignisse und etwa 40,2 % der Werbe-Conversions.',
        'Serverseitiges Tagging auf einer First-Party-Domain könnte etwa 12,2 Prozentpunkte zurückgewinnen.',
        'Mobile Performance-Bewertung: 42/100 (LCP 4,8 s, TBT 612 ms, CLS 0,12).',
      ].join(' '),
    );
    expect(summary.recommendations).toEqual([
      'Halten Sie Meta Pixel bis zur Einwilligung zurück (Skript-Blockierung der CMP oder Consent-Trigger im Tag Manager).',
      'Verlagern Sie Ihre Tags auf serverseitiges Tagging unter einer eigenen Subdomain (z. B. data.example.test), um etwa 12,2 Prozentpunkte verlorener Daten zurückzugewinnen.',
      'Senden Sie Meta-Ereignisse zusätzlich zum Browser-Pixel über die Conversions API.',
      'Verbessern Sie die Ladegeschwindigkeit (Bewertung 42/100): Tags asynchron laden und nicht sofort benötigte verzögern.',
    ]);
  });

  it('writes French, and only says what was found', async () => {
    const trackers = [
      tracker('universal_analytics', 'Google Universal Analytics', 'Google', 'analytics', null, { ids: ['UA-1234-5'] }),
    ];
    const summary = await builtin.summarize(
      findings({
        trackers,
        consent: {
          cmp: null,
          tcf_api: null,
          consent_mode: {
            detected: false,
            version: null,
            mode: null,
            defaults: { ad_storage: null, analytics_storage: null, ad_user_data: null, ad_personalization: null },
          },
          banner_detected: null,
          tags_before_consent: [],
        },
        loss_estimate: estimateLoss({ trackers, consentMechanism: false, language: 'fr' }),
        pagespeed: null,
      }),
      'fr',
    );
    expect(summary.text).toBe(
      [
        '1 traceur trouvé sur shop.example.test : Google Universal Analytics.',
        // banner_detected is null (no browser stage): whether a banner shows is unknown, never "no banner".
        "Aucune plateforme de gestion du consentement n'a été trouvée dans le code de la page ; la présence d'un bandeau cookies n'a pas pu être vérifiée car l'étape navigateur n'a pas abouti.",
        "Le mode de consentement Google n'a pas été détecté alors que des balises Google sont présentes.",
        "Impossible de vérifier si des traceurs se déclenchent avant le consentement : l'étape navigateur n'a pas abouti.",
        "Aucun marquage côté serveur n'a été détecté : les balises envoient les données directement aux fournisseurs.",
        'Perte de données estimée : environ 7,4 % des événements analytics.', // 100 × 0.21 × 0.35 = 7.35 → 7.4; first-party 1.8375 → 1.8; 7.4 − 1.8 = 5.6
        'Un marquage côté serveur sur un domaine propre (first-party) permettrait de récupérer environ 5,6 points de pourcentage.',
      ].join(' '),
    );
    expect(summary.recommendations).toEqual([
      'Mettez en place une plateforme de gestion du consentement et ne chargez les balises de suivi qu’après le consentement des visiteurs.',
      'Mettez en œuvre le mode de consentement Google v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) via votre CMP.',
      'Supprimez Universal Analytics : il ne traite plus de données depuis juillet 2023.',
      'Passez au marquage côté serveur sur un sous-domaine propre (par ex. data.example.test) pour récupérer environ 5,6 points de pourcentage de données perdues.',
    ]);
  });

  it('names a CMP known only by its TCF id, and does not name one known only by its banner', async () => {
    const base = findings();
    const withCmp = (cmp: ReturnType<typeof findings>['consent']['cmp']) =>
      builtin.summarize(findings({ consent: { ...base.consent, cmp } }), 'en');
    const byTcf = await withCmp({ name: null, evidence: [], tcf_cmp_id: 4242 });
    expect(byTcf.text).toContain('IAB TCF CMP #4242');
    const byBanner = await withCmp({ name: null, evidence: [], banner_detected: true });
    expect(byBanner.text).toContain(
      'No known consent management platform was detected, but a cookie notice is visible.',
    );
  });

  it('names configured tags that did not fire, one item per vendor, never as trackers or in the loss', async () => {
    const tag = (key: string | null, vendor: string, triggers: string[], fired: boolean) => ({
      type: '__x',
      key,
      vendor,
      ids: [],
      triggers,
      fired,
    });
    const configs: SummaryFindings['tag_manager_configs'] = [
      {
        manager: 'google_tag_manager',
        container_id: 'GTM-TEST123',
        url: 'https://www.googletagmanager.com/gtm.js?id=GTM-TEST123',
        readable: true,
        version: '3',
        tags: [
          tag('google_analytics_4', 'Google Analytics 4', ['page view'], true),
          tag('google_ads', 'Google Ads', ['link click'], false),
          tag('google_ads', 'Google Ads', ['custom event purchase', 'consent: ad_storage'], false),
          tag('meta_pixel', 'Meta Pixel', ['page view', 'consent: ad_storage'], false),
          tag(null, 'custom HTML', ['page view'], false),
        ],
      },
      {
        manager: 'matomo_tag_manager',
        container_id: 'Ab12Cd34',
        url: 'https://stats.example.test/js/container_Ab12Cd34.js',
        readable: true,
        version: null,
        tags: [tag('linkedin_insight', 'LinkedIn Insight Tag', [], false)],
      },
    ];
    const base = await builtin.summarize(findings(), 'en');
    const summary = await builtin.summarize(findings({ tag_manager_configs: configs }), 'en');
    const sentence =
      'Configured in the tag manager but not seen firing during the scan (the scan never clicks, submits a form or gives consent): Google Ads (link click, custom event purchase, consent: ad_storage), Meta Pixel (page view, consent: ad_storage) and LinkedIn Insight Tag.';
    expect(summary.text).toBe(
      base.text.replace('Tag management: Google Tag Manager.', `Tag management: Google Tag Manager. ${sentence}`),
    );
    expect(summary.recommendations).toEqual(base.recommendations);
    expect(base.text).not.toContain('not seen firing');
    const german = await builtin.summarize(findings({ tag_manager_configs: configs }), 'de');
    expect(german.text).toContain(
      'Im Tag Manager eingerichtet, aber während des Scans nicht ausgelöst (der Scan klickt nie, sendet kein Formular ab und erteilt keine Einwilligung): Google Ads (link click, custom event purchase, consent: ad_storage), Meta Pixel (page view, consent: ad_storage) und LinkedIn Insight Tag.',
    );
    for (const language of LANGUAGES) {
      const text = (await builtin.summarize(findings({ tag_manager_configs: configs }), language)).text;
      expect(text, language).toContain('Google Ads (link click, custom event purchase, consent: ad_storage)');
      expect(text, language).not.toContain('custom HTML');
    }
    const allFired = configs.map((config) => ({
      ...config,
      tags: config.tags.map((item) => ({ ...item, fired: true })),
    }));
    expect((await builtin.summarize(findings({ tag_manager_configs: allFired }), 'en')).text).toBe(base.text);
  });

  it('has every text in all eight languages', async () => {
    const english = await builtin.summarize(findings(), 'en');
    for (const language of LANGUAGES) {
      expect(Object.keys(TEXTS[language].rec).sort()).toEqual(Object.keys(TEXTS.en.rec).sort());
      const summary = await builtin.summarize(findings(), language);
      expect(summary.language).toBe(language);
      expect(summary.recommendations).toHaveLength(english.recommendations.length);
      if (language !== 'en') expect(summary.text).not.toBe(english.text);
      expect(summary.text).toContain('Meta Pixel');
    }
  });
});

interface Captured {
  method?: string;
  url?: string;
  authorization?: string;
  body?: { model: string; messages: Array<{ role: string; content: string }>; response_format?: unknown };
}

describe('OpenAI-compatible provider', () => {
  let server: http.Server;
  let base: string;
  const captured: Captured = {};
  let mode: 'ok' | 'fenced' | 'error' | 'prose' | 'slow' = 'ok';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        Object.assign(captured, {
          method: req.method,
          url: req.url,
          authorization: req.headers.authorization,
          body: JSON.parse(raw),
        });
        const reply = (content: string) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: 'chatcmpl-test',
              object: 'chat.completion',
              model: 'test-model',
              choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
            }),
          );
        };
        const json = JSON.stringify({
          summary: 'Auf shop.example.test laufen Google Analytics 4 und Meta Pixel vor der Einwilligung.',
          recommendations: ['Meta Pixel erst nach Einwilligung laden.'],
        });
        if (mode === 'ok') reply(json);
        else if (mode === 'fenced') reply(`\`\`\`json\n${json}\n\`\`\``);
        else if (mode === 'prose') reply('Hier ist meine Zusammenfassung ohne JSON.');
        else if (mode === 'slow') setTimeout(() => reply(json), 3_000);
        else {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"upstream overloaded"}}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts the findings and the language, and returns the completion', async () => {
    mode = 'ok';
    const provider = new OpenAiCompatibleProvider({ baseUrl: `${base}/`, model: 'test-model', apiKey: 'sk-test-123' });
    const summary = await provider.summarize(findings(), 'de', { timeoutMs: 5_000 });
    expect(summary).toEqual({
      provider: 'openai_compatible',
      model: 'test-model',
      language: 'de',
      text: 'Auf shop.example.test laufen Google Analytics 4 und Meta Pixel vor der Einwilligung.',
      recommendations: ['Meta Pixel erst nach Einwilligung laden.'],
    });
    expect(captured.method).toBe('POST');
    expect(captured.url).toBe('/v1/chat/completions');
    expect(captured.authorization).toBe('Bearer sk-test-123');
    expect(captured.body?.model).toBe('test-model');
    expect(captured.body?.response_format).toEqual({ type: 'json_object' });
    const [system, user] = captured.body!.messages;
    expect(system.role).toBe('system');
    expect(system.content).toContain('Do not invent');
    expect(system.content).toContain('Write in German (language code "de")');
    expect(user.role).toBe('user');
    const sent = JSON.parse(user.content.slice(user.content.indexOf('{')));
    expect(sent.trackers.map((item: { name: string }) => item.name)).toEqual([
      'Google Tag Manager',
      'Google Analytics 4',
      'Meta Pixel',
    ]);
    expect(sent.consent.cmp).toBe('Cookiebot');
    expect(sent.loss_estimate.ad_conversions.lost_pct).toBe(40.2);
    expect(sent.trackers[0].evidence).toBeUndefined(); // only findings, not raw evidence
  });

  it('accepts a fenced JSON reply', async () => {
    mode = 'fenced';
    const provider = new OpenAiCompatibleProvider({ baseUrl: base, model: 'test-model', apiKey: 'k' });
    expect((await provider.summarize(findings(), 'de', { timeoutMs: 5_000 })).recommendations).toEqual([
      'Meta Pixel erst nach Einwilligung laden.',
    ]);
  });

  it.each([
    ['error', /HTTP 500/],
    ['prose', /not the requested JSON/],
  ] as const)('fails clearly on %s', async (which, message) => {
    mode = which;
    const provider = new OpenAiCompatibleProvider({ baseUrl: base, model: 'test-model', apiKey: 'k' });
    const error = await provider.summarize(findings(), 'fr', { timeoutMs: 5_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SummaryProviderError);
    expect((error as Error).message).toMatch(message);
  });

  it('gives up at its timeout', async () => {
    mode = 'slow';
    const provider = new OpenAiCompatibleProvider({ baseUrl: base, model: 'test-model', apiKey: 'k' });
    const started = Date.now();
    await expect(provider.summarize(findings(), 'en', { timeoutMs: 500 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
