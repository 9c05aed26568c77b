import type { LaunchComponent, ReadableLaunchContainer } from '../launch-container.js';
import { type ConfiguredTag, tagFromCode } from './gtm-tags.js';

/**
 * What an Adobe Experience Platform tags (Launch) property is configured to fire: each rule action is a tag, named by
 * the extension that runs it (the property's own display name for it), or by the vendor our code rules find in a
 * custom code action; its triggers are the rule's events in plain terms.
 */

/** Adobe's own extensions whose beacons third-party-web names "Adobe Experience Cloud" (*.omtrdc.net, *.2o7.net). */
const EXPERIENCE_CLOUD = 'tpw:Adobe Experience Cloud';
const EXTENSION_TRACKERS: Record<string, ConfiguredTag['key']> = {
  'adobe-analytics': EXPERIENCE_CLOUD,
  'adobe-target': EXPERIENCE_CLOUD,
  'adobe-target-v2': EXPERIENCE_CLOUD,
};

/** Actions that are the runtime's own machinery, not a tag. */
const MACHINERY = new Set([
  'adobe-analytics/src/lib/actions/setVariables.js',
  'adobe-analytics/src/lib/actions/clearVariables.js',
]);

/** The core extension's events (core/src/lib/events/<name>.js), in plain terms. */
const CORE_EVENTS: Record<string, string> = {
  libraryLoaded: 'library loaded',
  pageBottom: 'page bottom',
  domReady: 'DOM ready',
  windowLoaded: 'window loaded',
  click: 'click',
  submit: 'form submission',
  change: 'change',
  hover: 'hover',
  focus: 'focus',
  blur: 'blur',
  keyPress: 'key press',
  timeOnPage: 'time on page',
  enterViewport: 'element in view',
  historyChange: 'history change',
  tabFocus: 'tab focus',
  tabBlur: 'tab blur',
  dataElementChange: 'data element change',
  orientationChange: 'orientation change',
  zoomChange: 'zoom change',
  customCode: 'custom code',
  directCall: 'direct call',
  customEvent: 'custom event',
};

export function launchTags(container: ReadableLaunchContainer): ConfiguredTag[] {
  return container.rules.flatMap((rule) => {
    const triggers = [...new Set(rule.events.map(eventTrigger))];
    return rule.actions
      .filter((action) => !MACHINERY.has(action.modulePath))
      .map((action) => ({ ...actionTag(action, container), triggers }));
  });
}

function actionTag(action: LaunchComponent, container: ReadableLaunchContainer): Omit<ConfiguredTag, 'triggers'> {
  const type = action.modulePath;
  const extension = type.split('/')[0];
  if (type === 'core/src/lib/actions/customCode.js') {
    const source = action.settings.isExternal === true ? '' : String(action.settings.source ?? '');
    return tagFromCode(type, source, 'custom code');
  }
  const known = container.extensions[extension];
  return {
    type,
    key: EXTENSION_TRACKERS[extension] ?? null,
    vendor: known?.displayName ?? extension,
    ids: known?.accounts ?? [],
  };
}

function eventTrigger(event: LaunchComponent): string {
  const [extension, , , kind, file] = event.modulePath.split('/');
  const name = file?.replace(/\.js$/, '') ?? '';
  if (extension !== 'core' || kind !== 'events' || !(name in CORE_EVENTS)) return `event ${event.modulePath}`;
  if (name === 'directCall' && typeof event.settings.identifier === 'string')
    return `direct call ${event.settings.identifier}`;
  if (name === 'customEvent' && typeof event.settings.type === 'string') return `custom event ${event.settings.type}`;
  if (name === 'timeOnPage' && typeof event.settings.timeOnPage === 'number')
    return `time on page ${event.settings.timeOnPage} s`;
  return CORE_EVENTS[name];
}
