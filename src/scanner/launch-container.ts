/**
 * Adobe Experience Platform tags (Launch): the property the page loaded, as Adobe's runtime exposes it for debugging
 * (`_satellite._container`: build info, environment, extensions, rules with their events and actions, each named by
 * the module path of the extension that runs it). Read in the page after observation, cut down to what the scan
 * reads and to JSON-safe values (a custom code action's source when it is text; never a function).
 */

export interface LaunchComponent {
  modulePath: string;
  /** String, number and boolean settings (and `source` when it is text), at most 20. */
  settings: Record<string, string | number | boolean>;
}

export type LaunchContainerSnapshot = { readable: false } | ReadableLaunchContainer;

export interface ReadableLaunchContainer {
  readable: true;
  propertyId: string | null;
  propertyName: string | null;
  buildDate: string | null;
  stage: string | null;
  extensions: Record<string, { displayName: string | null; accounts: string[] }>;
  rules: Array<{ name: string; events: LaunchComponent[]; actions: LaunchComponent[] }>;
}

/** Null when the page has no Launch runtime; `{ readable: false }` for one without `_container` (an old runtime). */
export const LAUNCH_CONTAINER_SCRIPT = `(() => {
  const satellite = window._satellite;
  if (!satellite || typeof satellite !== 'object') return null;
  const container = satellite._container;
  const text = (value, max) => (typeof value === 'string' ? value.slice(0, max || 200) : null);
  if (!container || typeof container !== 'object') return { readable: false };
  const settingsOf = (settings) => {
    const kept = {};
    if (!settings || typeof settings !== 'object') return kept;
    for (const key of Object.keys(settings).slice(0, 20)) {
      const value = settings[key];
      if (typeof value === 'number' || typeof value === 'boolean') kept[key] = value;
      else if (typeof value === 'string') kept[key] = value.slice(0, key === 'source' ? 20000 : 300);
    }
    return kept;
  };
  const components = (list) => (Array.isArray(list) ? list.slice(0, 20) : [])
    .filter((item) => item && typeof item.modulePath === 'string')
    .map((item) => ({ modulePath: item.modulePath.slice(0, 200), settings: settingsOf(item.settings) }));
  const extensions = {};
  for (const name of Object.keys(container.extensions || {}).slice(0, 50)) {
    const extension = container.extensions[name] || {};
    const accounts = ((extension.settings || {}).libraryCode || {}).accounts || {};
    const stage = text((container.environment || {}).stage) || 'production';
    const ids = Array.isArray(accounts[stage]) ? accounts[stage] : [];
    extensions[name] = { displayName: text(extension.displayName), accounts: ids.filter((id) => typeof id === 'string').slice(0, 10).map((id) => id.slice(0, 100)) };
  }
  return {
    readable: true,
    propertyId: text((container.property || {}).id),
    propertyName: text((container.property || {}).name),
    buildDate: text((container.buildInfo || {}).buildDate),
    stage: text((container.environment || {}).stage),
    extensions,
    rules: (Array.isArray(container.rules) ? container.rules.slice(0, 300) : []).map((rule) => ({
      name: text((rule || {}).name) || '',
      events: components((rule || {}).events),
      actions: components((rule || {}).actions),
    })),
  };
})()`;
