import type { RuntimeFindings } from '../capture-types.js';
import type { Tracker } from '../schema.js';
import type { TagManagerConfig } from '../schema-tag-managers.js';
import { launchTags } from './adobe-launch.js';
import { parseGtmContainer } from './gtm-container.js';
import { parseMatomoContainer } from './matomo-container.js';
import type { ConfiguredTag } from './gtm-tags.js';

/**
 * What each GTM or Matomo Tag Manager container the browser received, and the Adobe Launch property the page ran, is
 * configured to fire,
 * beside what the scan saw firing. Undefined without a browser stage (nothing to read); a container the reader cannot
 * parse is listed as not readable.
 */
export function readTagManagerConfigs(
  runtime: RuntimeFindings | null,
  trackers: Tracker[],
): TagManagerConfig[] | undefined {
  if (!runtime) return undefined;
  const launch = launchConfig(runtime, trackers);
  return [...gtmConfigs(runtime, trackers), ...(launch ? [launch] : [])];
}

function gtmConfigs(runtime: RuntimeFindings, trackers: Tracker[]): TagManagerConfig[] {
  return (runtime.containerScripts ?? []).map((script) => {
    if (MATOMO_CONTAINER_URL.test(script.url)) return matomoConfig(script, trackers);
    const container = parseGtmContainer(script.body);
    return {
      manager: 'google_tag_manager' as const,
      container_id: containerIdOf(script.url),
      url: script.url,
      readable: container !== null,
      version: container?.version ?? null,
      tags: (container?.tags ?? []).map((tag) => ({ ...tag, fired: sawFiring(tag, trackers) })),
    };
  });
}

const MATOMO_CONTAINER_URL = /\/container_[A-Za-z0-9]{8}\.js(\?|$)/;

function matomoConfig(script: { url: string; body: string }, trackers: Tracker[]): TagManagerConfig {
  const container = parseMatomoContainer(script.body);
  return {
    manager: 'matomo_tag_manager',
    container_id: container?.id ?? /container_([A-Za-z0-9]{8})\.js/.exec(script.url)?.[1] ?? null,
    url: script.url,
    readable: container !== null,
    version: container?.version ?? null,
    tags: (container?.tags ?? []).map((tag) => ({ ...tag, fired: sawFiring(tag, trackers) })),
  };
}

/** The Launch library the page loaded (`…/launch-<id>[.min].js`), read through the runtime it set up. */
function launchConfig(runtime: RuntimeFindings, trackers: Tracker[]): TagManagerConfig | null {
  const container = runtime.launchContainer;
  if (!container) return null;
  const library = runtime.requests.find((request) => LAUNCH_LIBRARY.test(request.url))?.url ?? null;
  if (!container.readable && !library) return null;
  return {
    manager: 'adobe_launch',
    container_id: container.readable ? container.propertyId : null,
    url: library ?? runtime.finalUrl,
    readable: container.readable,
    version: container.readable ? container.buildDate : null,
    tags: container.readable ? launchTags(container).map((tag) => ({ ...tag, fired: sawFiring(tag, trackers) })) : [],
  };
}

const LAUNCH_LIBRARY = /\/launch-[A-Za-z0-9-]+(\.min)?\.js(\?|$)/;

function containerIdOf(url: string): string | null {
  try {
    const id = new URL(url).searchParams.get('id');
    return id && /^GTM-[A-Z0-9]{4,10}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** The vendor sent or loaded something in this scan, with one of the tag's ids when the tag has any. */
function sawFiring(tag: ConfiguredTag, trackers: Tracker[]): boolean {
  const tracker = trackers.find((found) => found.key === tag.key && found.fires_before_consent === true);
  if (!tracker) return false;
  // Third-party-web's vendors carry only the ids our generic reading finds, often not the ones a tag is set up with.
  if (!tag.ids.length || tag.key?.startsWith('tpw:')) return true;
  const bare = (id: string) => id.split('/')[0];
  return tag.ids.some((id) => tracker.ids.some((seen) => bare(seen) === bare(id)));
}
