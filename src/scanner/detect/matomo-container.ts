import { closingBrace } from './gtm-container.js';
import { type ConfiguredTag, tagFromCode, tagFromUrl } from './gtm-tags.js';

/**
 * Reads a Matomo Tag Manager container script (`container_<id>.js`): the JSON configuration it hands to
 * `MatomoTagManager.addContainer({…}, Templates)`, its tags (type, parameters, the triggers that fire them) and
 * triggers (type, parameters). What cannot be read is `null`, never an error.
 */

export interface MatomoContainer {
  id: string | null;
  version: string | null;
  tags: ConfiguredTag[];
}

type Item = Record<string, unknown>;

const MAX_CONTAINER_CHARS = 4_000_000;

/** Trigger types in plain terms; the rest are named by their type. */
const TRIGGERS: Record<string, string> = {
  PageView: 'page view',
  DomReady: 'DOM ready',
  WindowLoaded: 'window loaded',
  WindowUnload: 'page leave',
  AllElementsClick: 'click',
  AllLinksClick: 'link click',
  DownloadClick: 'download click',
  FormSubmit: 'form submission',
  ElementVisibility: 'element in view',
  HistoryChange: 'history change',
  Timer: 'timer',
  PageHidden: 'page hidden',
  PageVisible: 'page visible',
  JavaScriptError: 'JavaScript error',
};

export function parseMatomoContainer(script: string): MatomoContainer | null {
  const config = configOf(script.slice(0, MAX_CONTAINER_CHARS));
  if (!config || !Array.isArray(config.tags)) return null;
  const triggers = new Map(itemsOf(config.triggers).map((trigger) => [trigger.id, describeTrigger(trigger)]));
  const tags = itemsOf(config.tags).map((tag) => {
    const fired = Array.isArray(tag.fireTriggerIds) ? tag.fireTriggerIds : [];
    const named = fired.map((id) => triggers.get(id)).filter((name): name is string => !!name);
    return { ...tagOf(tag), triggers: [...new Set(named)] };
  });
  return { id: text(config.id), version: text(config.versionName), tags };
}

function configOf(script: string): Item | null {
  const start = /MatomoTagManager\.addContainer\(\s*\{/.exec(script);
  if (!start) return null;
  const open = script.indexOf('{', start.index);
  const end = closingBrace(script, open);
  if (end < 0) return null;
  try {
    const value: unknown = JSON.parse(script.slice(open, end + 1));
    return value && typeof value === 'object' ? (value as Item) : null;
  } catch {
    return null;
  }
}

function tagOf(tag: Item): Omit<ConfiguredTag, 'triggers'> {
  const type = text(tag.type) ?? 'unknown';
  const parameters = (tag.parameters && typeof tag.parameters === 'object' ? tag.parameters : {}) as Item;
  if (type === 'Matomo') {
    const config = (parameters.matomoConfig as Item | undefined)?.parameters as Item | undefined;
    const site = config?.idSite;
    const id = typeof site === 'string' || typeof site === 'number' ? String(site) : null;
    return { type, key: 'matomo', vendor: 'Matomo', ids: id ? [id] : [] };
  }
  if (type === 'CustomHtml') return tagFromCode(type, text(parameters.customHtml) ?? '', 'custom HTML');
  if (type === 'CustomImage') return tagFromUrl(type, text(parameters.customImageSrc) ?? '');
  return { type, key: null, vendor: type, ids: [] };
}

function describeTrigger(trigger: Item): string {
  const type = text(trigger.type) ?? '';
  const parameters = (trigger.parameters && typeof trigger.parameters === 'object' ? trigger.parameters : {}) as Item;
  if (type === 'CustomEvent') {
    const name = text(parameters.eventName);
    return name ? `custom event ${name}` : 'custom event';
  }
  if (type === 'ScrollReach') {
    const mark = parameters.pixelsOrPercentage;
    const percent = parameters.scrollType === 'verticalpercentage' || parameters.scrollType === 'horizontalpercentage';
    return typeof mark === 'string' || typeof mark === 'number' ? `scroll ${mark}${percent ? ' %' : ' px'}` : 'scroll';
  }
  return TRIGGERS[type] ?? type;
}

const text = (value: unknown) => (typeof value === 'string' && value.length < 4000 ? value : null);

function itemsOf(value: unknown): Item[] {
  return Array.isArray(value) ? value.filter((item): item is Item => !!item && typeof item === 'object') : [];
}
