import { type ConfiguredTag, tagFromGtm } from './gtm-tags.js';

/**
 * Reads a Google Tag Manager container script: the `resource` object gtm.js embeds (`var data = {"resource": …}`),
 * its `tags`, the `predicates` that test the event name and other variables, and the `rules` linking them
 * (`["if", predicate…]`, `["unless", …]`, `["add", tag…]`). What cannot be read is `null`, never an error.
 */

export interface GtmContainer {
  version: string | null;
  tags: ConfiguredTag[];
}

interface Resource {
  version?: unknown;
  macros?: unknown;
  tags?: unknown;
  predicates?: unknown;
  rules?: unknown;
}

type Item = Record<string, unknown>;

const MAX_CONTAINER_CHARS = 4_000_000;

export function parseGtmContainer(script: string): GtmContainer | null {
  const resource = resourceOf(script.slice(0, MAX_CONTAINER_CHARS));
  if (!resource || !Array.isArray(resource.tags)) return null;
  const macros = itemsOf(resource.macros);
  const predicates = itemsOf(resource.predicates);
  const triggers = triggersByTag(resource.rules, predicates, macros);
  const scrollMarks = scrollThresholds(itemsOf(resource.tags));
  const tags = itemsOf(resource.tags).flatMap((tag, index) => {
    const found = tagFromGtm(tag);
    if (!found) return [];
    const named = (triggers.get(index) ?? []).map((trigger) =>
      trigger === 'scroll' && scrollMarks.length ? `scroll ${scrollMarks.join(' / ')} %` : trigger,
    );
    const consent = consentOf(tag);
    return [{ ...found, triggers: [...new Set([...named, ...consent])] }];
  });
  return { version: typeof resource.version === 'string' ? resource.version : null, tags };
}

/** The JSON object after `var data =` that holds `resource`, cut out by balancing braces outside strings. */
function resourceOf(script: string): Resource | null {
  const start = /\bdata\s*=\s*\{\s*"resource"\s*:/.exec(script);
  if (!start) return null;
  const open = script.indexOf('{', start.index);
  const end = closingBrace(script, open);
  if (end < 0) return null;
  try {
    const data = JSON.parse(script.slice(open, end + 1)) as { resource?: Resource };
    return data.resource && typeof data.resource === 'object' ? data.resource : null;
  } catch {
    return null;
  }
}

/** The index of the brace that closes the one at `open`, braces inside JSON strings skipped; -1 without one. */
export function closingBrace(text: string, open: number): number {
  let depth = 0;
  let quote = false;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === '\\') index++;
      else if (char === '"') quote = false;
    } else if (char === '"') quote = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index;
  }
  return -1;
}

function itemsOf(value: unknown): Item[] {
  return Array.isArray(value) ? value.map((item) => (item && typeof item === 'object' ? (item as Item) : {})) : [];
}

/** Tag index → the plain-terms triggers of every rule that adds it. */
function triggersByTag(rules: unknown, predicates: Item[], macros: Item[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const rule of Array.isArray(rules) ? rules : []) {
    if (!Array.isArray(rule)) continue;
    const clause = (name: string) =>
      rule
        .filter((part): part is unknown[] => Array.isArray(part) && part[0] === name)
        .flatMap((part) => part.slice(1));
    const conditions = clause('if').flatMap((index) => describePredicate(predicates[Number(index)], macros));
    const trigger = conditions.length
      ? conditions.join(' + ').replace(/^scroll \+ at (\d+) %$/, 'scroll $1 %')
      : 'page view';
    for (const tag of clause('add')) out.set(Number(tag), [...(out.get(Number(tag)) ?? []), trigger]);
  }
  return out;
}

const EVENT_NAMES: Record<string, string> = {
  'gtm.js': 'page view',
  'gtm.init': 'page view',
  'gtm.init_consent': 'page view (consent initialisation)',
  'gtm.dom': 'DOM ready',
  'gtm.load': 'window loaded',
  'gtm.scrollDepth': 'scroll',
  'gtm.click': 'click',
  'gtm.linkClick': 'link click',
  'gtm.formSubmit': 'form submit',
  'gtm.timer': 'timer',
  'gtm.elementVisibility': 'element visible',
  'gtm.video': 'YouTube video',
  'gtm.historyChange': 'history change',
  'gtm.historyChange-v2': 'history change',
};

/** An event-name test in plain terms; other tests (page path, variables) are conditions, not triggers. */
function describePredicate(predicate: Item | undefined, macros: Item[]): string[] {
  if (!predicate || !['_eq', '_re'].includes(String(predicate.function))) return [];
  const arg0 = predicate.arg0;
  const macro = Array.isArray(arg0) && arg0[0] === 'macro' ? macros[Number(arg0[1])] : undefined;
  const value = typeof predicate.arg1 === 'string' ? predicate.arg1 : null;
  if (!macro || value === null) return [];
  if (macro.function === '__e') return [EVENT_NAMES[value] ?? `custom event ${value}`];
  if (macro.function === '__v' && macro.vtp_name === 'gtm.scrollThreshold') return [`at ${value} %`];
  return [];
}

/** The vertical thresholds of the scroll-depth listeners (`__sdl`), in percent. */
function scrollThresholds(tags: Item[]): string[] {
  const marks = tags
    .filter((tag) => tag.function === '__sdl' && typeof tag.vtp_verticalThresholdsPercent === 'string')
    .flatMap((tag) => String(tag.vtp_verticalThresholdsPercent).split(','))
    .map((mark) => mark.trim())
    .filter((mark) => /^\d{1,3}$/.test(mark));
  return [...new Set(marks)];
}

/** The consent types a tag requires (`"consent": ["list", "ad_storage", …]`). */
function consentOf(tag: Item): string[] {
  const consent = tag.consent;
  if (!Array.isArray(consent)) return [];
  return consent
    .filter((type): type is string => typeof type === 'string' && type !== 'list')
    .map((type) => `consent: ${type}`);
}
