import { type Dispatcher, request } from 'undici';
import { composeSummary, type SummaryFacts } from './i18n.js';
import type { AiSummary, Language, ScanResult } from './schema.js';

/** Summary providers: the builtin writer (findings → text, all languages) and an OpenAI-compatible chat model. */

export type SummaryFindings = Pick<
  ScanResult,
  | 'url'
  | 'final_url'
  | 'trackers'
  | 'consent'
  | 'server_side_tagging'
  | 'loss_estimate'
  | 'pagespeed'
  | 'tag_manager_configs'
>;

export interface SummaryProvider {
  readonly kind: AiSummary['provider'];
  summarize(
    findings: SummaryFindings,
    language: Language,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<AiSummary>;
}

export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  nl: 'Dutch',
  pt: 'Portuguese',
  pl: 'Polish',
};

export function summaryFacts(findings: SummaryFindings, siteDomain: string): SummaryFacts {
  const isReferenced = (tracker: SummaryFindings['trackers'][number]) => tracker.activation?.state === 'referenced';
  const ran = findings.trackers.filter((tracker) => !isReferenced(tracker));
  const measuring = ran.filter((tracker) => tracker.category !== 'tag_manager');
  const beforeConsentKnown =
    findings.trackers.some((tracker) => tracker.fires_before_consent !== null) || findings.trackers.length === 0;
  const names = (keys: string[]) =>
    keys.map((key) => findings.trackers.find((tracker) => tracker.key === key)?.name ?? key);
  const hasGoogle = findings.trackers.some((tracker) => tracker.vendor === 'Google');
  const meta = ran.find((tracker) => tracker.key === 'meta_pixel');
  let host = findings.final_url;
  try {
    host = new URL(findings.final_url).hostname;
  } catch {
    /* keep the URL */
  }
  return {
    host,
    trackers: measuring.map((tracker) => tracker.name),
    tagManagers: ran.filter((tracker) => tracker.category === 'tag_manager').map((tracker) => tracker.name),
    cmp: cmpName(findings.consent.cmp),
    bannerDetected: findings.consent.banner_detected,
    googleTags: hasGoogle,
    consentMode: {
      detected: findings.consent.consent_mode.detected,
      version: findings.consent.consent_mode.version,
      mode: findings.consent.consent_mode.mode,
      analytics: findings.consent.consent_mode.defaults.analytics_storage,
      ads: findings.consent.consent_mode.defaults.ad_storage,
      missingV2Keys: findings.consent.consent_mode.missing_v2_keys ?? ['ad_user_data', 'ad_personalization'],
    },
    beforeConsent: beforeConsentKnown
      ? {
          names: names(findings.consent.tags_before_consent.map((tag) => tag.key)),
          cookielessNames: names(
            findings.consent.tags_before_consent.filter((tag) => tag.cookieless).map((tag) => tag.key),
          ),
        }
      : null,
    serverSide: { detected: findings.server_side_tagging.detected, endpoints: findings.server_side_tagging.endpoints },
    loss: { analytics: findings.loss_estimate.analytics_events, ads: findings.loss_estimate.ad_conversions },
    pagespeed: findings.pagespeed
      ? {
          score: findings.pagespeed.score,
          lcpMs: findings.pagespeed.metrics.lcp_ms,
          tbtMs: findings.pagespeed.metrics.tbt_ms,
          cls: findings.pagespeed.metrics.cls,
        }
      : null,
    universalAnalytics: findings.trackers.some((tracker) => tracker.key === 'universal_analytics'),
    noscriptOnly: findings.trackers
      .filter((tracker) => tracker.activation?.state === 'noscript_only')
      .map((tracker) => tracker.name),
    referenced: findings.trackers.filter(isReferenced).map((tracker) => tracker.name),
    configuredNotFired: configuredNotFired(findings.tag_manager_configs ?? []),
    metaPixelClientOnly: !!meta && !meta.server_side && !meta.conversions_api,
    consentNeverGranted: findings.loss_estimate.consent_never_granted,
    siteDomain,
  };
}

export class BuiltinSummaryProvider implements SummaryProvider {
  readonly kind = 'builtin' as const;
  constructor(private readonly siteDomain: (url: string) => string) {}

  async summarize(findings: SummaryFindings, language: Language): Promise<AiSummary> {
    const { text, recommendations } = composeSummary(
      language,
      summaryFacts(findings, this.siteDomain(findings.final_url)),
    );
    return { provider: 'builtin', language, text, recommendations };
  }
}

export interface OpenAiCompatibleConfig {
  baseUrl: string;
  model: string;
  apiKey: string;
  /** How to connect (the service's resolvers and CA certificates); undici's global dispatcher when unset. */
  dispatcher?: Dispatcher;
}

/** The findings handed to the model: only what the scan observed, nothing more. */
export function findingsForPrompt(findings: SummaryFindings) {
  return {
    url: findings.final_url,
    trackers: findings.trackers
      .filter((tracker) => tracker.activation?.state !== 'referenced')
      .map((tracker) => ({
        name: tracker.name,
        vendor: tracker.vendor,
        category: tracker.category,
        ids: tracker.ids,
        first_party: tracker.first_party,
        server_side: tracker.server_side,
        fires_before_consent: tracker.fires_before_consent,
      })),
    // Named in the page's code only: none of their scripts loaded and none of their requests went.
    referenced_but_never_loaded: findings.trackers
      .filter((tracker) => tracker.activation?.state === 'referenced')
      .map((tracker) => tracker.name),
    consent: {
      cmp: cmpName(findings.consent.cmp),
      banner_detected: findings.consent.banner_detected,
      consent_mode: findings.consent.consent_mode,
      tags_before_consent: findings.consent.tags_before_consent.map(({ name, requests, cookieless }) => ({
        name,
        requests,
        cookieless,
      })),
    },
    server_side_tagging: {
      detected: findings.server_side_tagging.detected,
      endpoints: findings.server_side_tagging.endpoints,
    },
    loss_estimate: {
      analytics_events: findings.loss_estimate.analytics_events,
      ad_conversions: findings.loss_estimate.ad_conversions,
    },
    pagespeed: findings.pagespeed,
  };
}

export class SummaryProviderError extends Error {
  override readonly name = 'SummaryProviderError';
}

export class OpenAiCompatibleProvider implements SummaryProvider {
  readonly kind = 'openai_compatible' as const;
  constructor(private readonly config: OpenAiCompatibleConfig) {}

  buildRequestBody(findings: SummaryFindings, language: Language) {
    const languageName = LANGUAGE_NAMES[language];
    return {
      model: this.config.model,
      temperature: 0.2,
      response_format: { type: 'json_object' },
      messages: [
        {
          role: 'system',
          content: [
            'You are a web analytics and privacy consultant writing the summary of an automated tracking scan.',
            'Use only the findings in the JSON you are given. Do not invent trackers, ids, numbers, vendors or any other finding that is not in it; if something is not in the findings, do not mention it.',
            `Write in ${languageName} (language code "${language}").`,
            'Reply with a JSON object only: {"summary": string (at most 150 words), "recommendations": string[] (2 to 6 concrete next steps)}.',
          ].join(' '),
        },
        { role: 'user', content: `Scan findings:\n${JSON.stringify(findingsForPrompt(findings))}` },
      ],
    };
  }

  async summarize(
    findings: SummaryFindings,
    language: Language,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<AiSummary> {
    const url = `${this.config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const signals = [AbortSignal.timeout(Math.max(1, options.timeoutMs)), ...(options.signal ? [options.signal] : [])];
    const response = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.config.apiKey}`,
        accept: 'application/json',
      },
      body: JSON.stringify(this.buildRequestBody(findings, language)),
      ...(this.config.dispatcher ? { dispatcher: this.config.dispatcher } : {}),
      signal: AbortSignal.any(signals),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const raw = await response.body.text();
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new SummaryProviderError(`chat completions answered HTTP ${response.statusCode}: ${raw.slice(0, 200)}`);
    }
    let content: unknown;
    try {
      content = (JSON.parse(raw) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message
        ?.content;
    } catch {
      throw new SummaryProviderError('chat completions answer is not JSON');
    }
    if (typeof content !== 'string' || !content.trim())
      throw new SummaryProviderError('chat completions answer has no message content');
    const parsed = parseModelContent(content);
    return {
      provider: 'openai_compatible',
      model: this.config.model,
      language,
      text: parsed.summary,
      recommendations: parsed.recommendations,
    };
  }
}

/** The model's JSON reply (code fences tolerated). */
export function parseModelContent(content: string): { summary: string; recommendations: string[] } {
  const stripped = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: { summary?: unknown; text?: unknown; recommendations?: unknown };
  try {
    value = JSON.parse(stripped);
  } catch {
    throw new SummaryProviderError('model reply is not the requested JSON object');
  }
  const summary =
    typeof value.summary === 'string' ? value.summary : typeof value.text === 'string' ? value.text : null;
  if (!summary?.trim()) throw new SummaryProviderError('model reply has no summary');
  const recommendations = Array.isArray(value.recommendations)
    ? value.recommendations
        .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
        .slice(0, 10)
    : [];
  return { summary: summary.trim(), recommendations: recommendations.map((item) => item.trim()) };
}

/**
 * The tags of known vendors the page's containers are configured with that the scan did not see firing, one entry per
 * vendor with the triggers of all its unfired tags. Tags of no known vendor (custom HTML, templates) are left out: the
 * scan cannot tell whether they fired. Only named here: never trackers, never in the loss estimate.
 */
export function configuredNotFired(
  configs: NonNullable<ScanResult['tag_manager_configs']>,
): Array<{ name: string; triggers: string[] }> {
  const byVendor = new Map<string, Set<string>>();
  for (const tag of configs.flatMap((config) => config.tags)) {
    if (tag.fired || tag.key === null) continue;
    const triggers = byVendor.get(tag.vendor) ?? new Set<string>();
    for (const trigger of tag.triggers) triggers.add(trigger);
    byVendor.set(tag.vendor, triggers);
  }
  return [...byVendor].map(([name, triggers]) => ({ name, triggers: [...triggers] }));
}

/** A CMP known only by its IAB TCF id is still a consent platform; one known only by its banner is not named. */
function cmpName(cmp: ScanResult['consent']['cmp']): string | null {
  if (cmp?.name) return cmp.name;
  return cmp?.tcf_cmp_id ? `IAB TCF CMP #${cmp.tcf_cmp_id}` : null;
}
