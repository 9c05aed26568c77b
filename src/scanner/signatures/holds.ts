/**
 * Scripts written with a non-executable type on purpose, to be run later by a consent platform (after the visitor
 * consents) or by a performance plug-in (after the first interaction, or in a worker). Any other non-executable script
 * is inert markup (templates, JSON, data) and is not a tag.
 */

export type HoldKind = 'consent' | 'interaction' | 'worker';

export interface Hold {
  by: HoldKind;
  /** The consent platform or plug-in that parks the script. null: a consent blocker we cannot name. */
  mechanism: string | null;
  /** The attributes that show it, e.g. `type="text/plain" data-cookieconsent="marketing"`. */
  markers: string;
}

interface HoldRule {
  by: HoldKind;
  mechanism: string;
  /** Script types this rule parks scripts in; any type when absent. */
  types?: RegExp;
  /** Holds when any of these attributes is present (or the class matches). */
  attributes?: string[];
  classes?: RegExp;
  /** Attributes that carry the real src. */
  srcAttributes?: string[];
}

/** Attribute and type conventions from each product's documentation of its script blocking or delaying. */
const HOLD_RULES: HoldRule[] = [
  { by: 'consent', mechanism: 'Cookiebot', attributes: ['data-cookieconsent'] },
  { by: 'consent', mechanism: 'Usercentrics', attributes: ['data-usercentrics'] },
  { by: 'consent', mechanism: 'OneTrust', classes: /(^|\s)optanon-category-/ },
  {
    by: 'consent',
    mechanism: 'iubenda',
    classes: /(^|\s)_iub_cs_activate/,
    attributes: ['data-iub-purposes'],
    srcAttributes: ['data-suppressedsrc'],
  },
  {
    by: 'consent',
    mechanism: 'Complianz',
    classes: /(^|\s)cmplz-(script|native|stats)/,
    attributes: ['data-cmplz-src', 'data-service'],
    srcAttributes: ['data-cmplz-src'],
  },
  { by: 'consent', mechanism: 'CookieYes', attributes: ['data-cookieyes'] },
  { by: 'consent', mechanism: 'Didomi', types: /^didomi\/(javascript|html)$/i },
  {
    by: 'consent',
    mechanism: 'Borlabs Cookie',
    attributes: ['data-borlabs-cookie-script-blocker-id', 'data-borlabs-script-blocker-id'],
    srcAttributes: ['data-borlabs-cookie-script-blocker-src', 'data-borlabs-script-blocker-src'],
  },
  { by: 'consent', mechanism: 'CookieFirst', attributes: ['data-cookiefirst-category'] },
  { by: 'consent', mechanism: 'Cookie Script', attributes: ['data-cookiescript'] },
  {
    by: 'consent',
    mechanism: 'consentmanager',
    classes: /(^|\s)cmplazyload/,
    attributes: ['data-cmp-vendor', 'data-cmp-src'],
    srcAttributes: ['data-cmp-src'],
  },
  { by: 'consent', mechanism: 'TrustArc', classes: /(^|\s)trustecm/, attributes: ['trackertype'] },
  {
    by: 'consent',
    mechanism: 'Cookie Information',
    attributes: ['data-category-consent'],
    srcAttributes: ['data-consent-src'],
  },
  { by: 'consent', mechanism: 'CookieLawInfo', attributes: ['data-cli-class', 'data-cli-script-type'] },
  { by: 'consent', mechanism: 'Real Cookie Banner', attributes: ['consent-required', 'consent-id'] },
  { by: 'consent', mechanism: 'Klaro', types: /^text\/plain$/i, attributes: ['data-name'] },
  { by: 'consent', mechanism: 'CookieConsent (orestbida)', attributes: ['data-category', 'data-cookiecategory'] },
  { by: 'consent', mechanism: 'CookieHub', types: /^text\/plain$/i, attributes: ['data-consent'] },
  {
    by: 'interaction',
    mechanism: 'WP Rocket (delay JavaScript execution)',
    types: /^rocketlazyloadscript$/i,
    srcAttributes: ['data-rocket-src'],
  },
  {
    by: 'interaction',
    mechanism: 'LiteSpeed Cache (delay JS)',
    types: /^litespeed\/javascript$/i,
    srcAttributes: ['data-src'],
  },
  {
    by: 'interaction',
    mechanism: 'Perfmatters (delay JavaScript)',
    types: /^pmdelayedscript$/i,
    srcAttributes: ['data-pmdelayedscript', 'data-src'],
  },
  { by: 'interaction', mechanism: 'Flying Scripts', types: /^lazy$/i, srcAttributes: ['data-src'] },
  {
    by: 'interaction',
    mechanism: 'WP Meteor',
    types: /^javascript\/blocked$/i,
    srcAttributes: ['data-wpmeteor-src', 'data-src'],
  },
  {
    by: 'interaction',
    mechanism: 'FlyingPress (delay JavaScript)',
    attributes: ['data-loading-method'],
    srcAttributes: ['data-src'],
  },
  { by: 'worker', mechanism: 'Partytown (runs in a web worker)', types: /^text\/partytown$/i },
  {
    by: 'interaction',
    mechanism: 'Cloudflare Rocket Loader (runs after load)',
    types: /^[0-9a-f]{16,}-text\/javascript$/i,
  },
];

const EXECUTABLE_TYPES =
  /^(|text\/javascript|application\/javascript|module|text\/ecmascript|application\/ecmascript|text\/jscript|application\/x-javascript)$/i;

/** Generic consent blockers park scripts as text/plain with a consent category attribute we cannot attribute. */
const GENERIC_CONSENT_ATTRIBUTE = /^data-(.*-)?(consent|cookie|category|categories|purposes?)(-.*)?$/;

export function isExecutableType(type: string | undefined): boolean {
  return EXECUTABLE_TYPES.test((type ?? '').trim());
}

/** How a script element with a non-executable type is held back, or null when it is inert markup. Call it only for
 * scripts whose type does not execute. */
export function holdOf(attributes: Record<string, string>): Hold | null {
  const type = (attributes.type ?? '').trim();
  const markers = (names: string[]) =>
    [`type="${type}"`, ...names.filter((name) => attributes[name] !== undefined).map((n) => `${n}="${attributes[n]}"`)]
      .join(' ')
      .slice(0, 300);
  for (const rule of HOLD_RULES) {
    if (rule.types && !rule.types.test(type)) continue;
    const byAttribute = rule.attributes?.filter((name) => attributes[name] !== undefined) ?? [];
    const byClass = rule.classes?.test(attributes.class ?? '') ?? false;
    // A rule with no attribute/class conditions is decided by its type alone.
    if (!rule.attributes && !rule.classes ? !rule.types : !byAttribute.length && !byClass) continue;
    const names = [...byAttribute, ...(rule.srcAttributes ?? []), ...(byClass ? ['class'] : [])];
    return { by: rule.by, mechanism: rule.mechanism, markers: markers(names) };
  }
  if (/^text\/plain$/i.test(type)) {
    const generic = Object.keys(attributes).filter((name) => GENERIC_CONSENT_ATTRIBUTE.test(name));
    if (generic.length) return { by: 'consent', mechanism: null, markers: markers(generic) };
  }
  return null;
}

/** The URL a held script will load once released (its parked src attribute). */
export function heldSrc(attributes: Record<string, string>): string | undefined {
  if (attributes.src) return attributes.src;
  for (const rule of HOLD_RULES)
    for (const name of rule.srcAttributes ?? []) if (attributes[name]) return attributes[name];
  return attributes['data-src'];
}
