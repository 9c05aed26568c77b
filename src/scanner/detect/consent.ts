import type { RuntimeFindings } from '../browser.js';
import { modeExplanation } from '../i18n.js';
import type { ConsentResult, ConsentValue, Language, Tracker } from '../schema.js';
import { cmpForTcfId, matchUrl } from '../signatures.js';
import type { WarningDraft } from '../warnings.js';
import { GOOGLE_KEYS, type Book } from './book.js';
import { shorten, wasSent } from './urls.js';

/** A gtag('consent', 'default' | 'update', {...}) command, from inline code or from the runtime dataLayer. */
export interface ConsentCommand {
  command: 'default' | 'update';
  values: Record<string, string>;
  source: 'code' | 'dataLayer';
}

/** The consent picture: the leading CMP, Google Consent Mode, and the trackers that fired before consent. */
export function judgeConsent(
  book: Book,
  runtime: RuntimeFindings | null,
  commands: { code: ConsentCommand[]; dataLayer: ConsentCommand[] },
  trackers: Tracker[],
  language: Language,
): { result: ConsentResult; warnings: WarningDraft[] } {
  const warnings: WarningDraft[] = [];
  const grantedWithoutInteraction = commands.dataLayer.filter(
    (command) => command.command === 'update' && Object.values(command.values).includes('granted'),
  );
  if (grantedWithoutInteraction.length) {
    warnings.push({ code: 'consent_granted_without_interaction', facts: { kind: 'consent_without_interaction' } });
  }
  return {
    result: {
      cmp: leadingCmp(book, runtime),
      tcf_api: runtime ? runtime.tcfApi : null,
      consent_mode: consentMode(book, runtime, commands, language),
      banner_detected: runtime ? runtime.banner.visible : null,
      tags_before_consent: tagsBeforeConsent(book, trackers),
    },
    warnings,
  };
}

/**
 * The CMP with the most evidence; else the one the TCF API names by its registered id; else, when a banner is
 * visible, an unnamed one: a banner we cannot attribute is still a consent mechanism.
 */
function leadingCmp(book: Book, runtime: RuntimeFindings | null): ConsentResult['cmp'] {
  const tcfCmpId = runtime?.tcfCmpId ?? null;
  const withTcfId = tcfCmpId ? { tcf_cmp_id: tcfCmpId } : {};
  const entries = [...book.cmp.entries()].sort((a, b) => b[1].length - a[1].length);
  if (entries.length) return { name: entries[0][0], evidence: entries[0][1], ...withTcfId };
  if (tcfCmpId) {
    return {
      name: cmpForTcfId(tcfCmpId)?.name ?? null,
      evidence: [{ kind: 'global', detail: `__tcfapi('ping') reports IAB TCF CMP id ${tcfCmpId}` }],
      ...withTcfId,
    };
  }
  if (runtime?.banner.visible) {
    const via = runtime.banner.via ?? 'a visible banner';
    return { name: null, evidence: [{ kind: 'global', detail: `Consent banner: ${via}` }], banner_detected: true };
  }
  return null;
}

/**
 * Commands come from the runtime dataLayer, else from inline code. Mode: advanced when Google hits were sent while
 * storage was denied; basic when defaults deny storage and no Google hit was sent (see README.md, "Consent Mode").
 */
function consentMode(
  book: Book,
  runtime: RuntimeFindings | null,
  { code, dataLayer }: { code: ConsentCommand[]; dataLayer: ConsentCommand[] },
  language: Language,
): ConsentResult['consent_mode'] {
  const commands = runtime && dataLayer.length ? dataLayer : [...code, ...dataLayer];
  const defaultCommand =
    commands.find((command) => command.command === 'default' && !command.values.region) ??
    commands.find((command) => command.command === 'default');
  const googleHits = runtime ? GOOGLE_KEYS.flatMap((key) => book.accounts.get(key)?.hitsGcs ?? []) : [];
  const gcsValues = runtime
    ? runtime.requests
        .filter(wasSent)
        .map((request) => matchUrl(request.url).find((match) => match.gcs || match.gcd))
        .filter((match) => match !== undefined)
    : [];
  const gcs = gcsValues.find((match) => match.gcs)?.gcs;
  const gcd = gcsValues.find((match) => match.gcd)?.gcd;
  const detected = commands.length > 0 || !!gcs || !!gcd;
  const missingV2 = missingV2Keys(commands, gcd);
  const defaults = {
    ad_storage: consentValue(defaultCommand?.values.ad_storage),
    analytics_storage: consentValue(defaultCommand?.values.analytics_storage),
    ad_user_data: consentValue(defaultCommand?.values.ad_user_data),
    ad_personalization: consentValue(defaultCommand?.values.ad_personalization),
  };
  const deniedByDefault = defaults.ad_storage === 'denied' || defaults.analytics_storage === 'denied';
  const hasGoogleTag = ['google_tag_manager', 'google_tag', ...GOOGLE_KEYS].some((key) => book.has(key));
  let mode: 'basic' | 'advanced' | null = null;
  if (runtime && detected && hasGoogleTag && (deniedByDefault || (gcs && gcs !== 'G111'))) {
    const deniedHits = googleHits.filter((value) => value === null || value !== 'G111');
    if (deniedHits.length > 0) mode = 'advanced';
    else if (googleHits.length === 0) mode = 'basic';
  }
  return {
    detected,
    version: detected ? (missingV2.length ? 'v1' : 'v2') : null,
    ...(detected && missingV2.length ? { missing_v2_keys: missingV2 } : {}),
    mode,
    ...(mode ? { mode_explanation: modeExplanation(language, mode) } : {}),
    defaults,
    ...(gcs ? { gcs } : {}),
    ...(gcd ? { gcd } : {}),
  };
}

const V2_KEYS = ['ad_user_data', 'ad_personalization'] as const;

/**
 * The Consent Mode v2 keys no default or update sets. Every current gtag sends `gcd`, so its presence proves nothing;
 * only when no command could be read does the state `gcd` encodes stand in for them: its letters for ad_user_data and
 * ad_personalization (positions 6 and 8) are `l` when the key was never set.
 */
export function missingV2Keys(commands: ConsentCommand[], gcd: string | undefined): Array<(typeof V2_KEYS)[number]> {
  if (commands.length) return V2_KEYS.filter((key) => !commands.some((command) => key in command.values));
  if (gcd && /^\d\d[a-z]\d[a-z]\d[a-z]\d[a-z]/.test(gcd))
    return V2_KEYS.filter((_, index) => gcd[6 + 2 * index] === 'l');
  return [...V2_KEYS];
}

function consentValue(value: string | undefined): ConsentValue | null {
  return value === 'granted' || value === 'denied' ? value : null;
}

/** Trackers that fired before consent; `cookieless` when all their Google hits had both storages denied (G100). */
function tagsBeforeConsent(book: Book, trackers: Tracker[]): ConsentResult['tags_before_consent'] {
  return trackers
    .filter((tracker) => tracker.fires_before_consent)
    .map((tracker) => {
      const account = book.accounts.get(tracker.key)!;
      const hits = account.hitsGcs;
      return {
        key: tracker.key,
        name: tracker.name,
        requests: account.requests.length,
        first_url: shorten(account.requests[0].url),
        cookieless: hits.length > 0 && hits.every((value) => value === 'G100'),
      };
    });
}
