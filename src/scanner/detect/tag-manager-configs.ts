import type { RuntimeFindings } from '../capture-types.js';
import type { Tracker } from '../schema.js';
import type { TagManagerConfig } from '../schema-tag-managers.js';
import { parseGtmContainer } from './gtm-container.js';
import type { ConfiguredTag } from './gtm-tags.js';

/**
 * What each GTM container the browser received is configured to fire, beside what the scan saw firing. Undefined
 * without a browser stage (nothing to read); a container the reader cannot parse is listed as not readable.
 */
export function readTagManagerConfigs(
  runtime: RuntimeFindings | null,
  trackers: Tracker[],
): TagManagerConfig[] | undefined {
  if (!runtime) return undefined;
  return (runtime.containerScripts ?? []).map((script) => {
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
  if (!tag.ids.length) return true;
  const bare = (id: string) => id.split('/')[0];
  return tag.ids.some((id) => tracker.ids.some((seen) => bare(seen) === bare(id)));
}
