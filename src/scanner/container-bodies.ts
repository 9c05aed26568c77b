import type { Response } from 'playwright-core';
import { matchUrl } from './signatures.js';

/**
 * Keeps the bodies of tag-manager container scripts the browser received (GTM's gtm.js, first-party or through a
 * custom loader path; Matomo Tag Manager's container_<id>.js), so the scan can read what the container is configured to
 * fire. Bounded in number and size.
 */

type ContainerScript = { url: string; body: string };

const MAX_CONTAINERS = 4;
const MAX_BODY_BYTES = 3_000_000;
/** How long the snapshot waits for bodies still being read. */
const BODY_WAIT_MS = 1_000;

export class ContainerBodies {
  private readonly pending: Array<Promise<ContainerScript | null>> = [];

  keep(response: Response): void {
    if (this.pending.length >= MAX_CONTAINERS || !response.ok() || !isReadableContainer(response.url())) return;
    const length = Number(response.headers()['content-length'] ?? 0);
    if (length > MAX_BODY_BYTES) return;
    this.pending.push(
      response
        .body()
        .then((body) => ({
          url: response.url().slice(0, 2000),
          body: body.subarray(0, MAX_BODY_BYTES).toString('utf8'),
        }))
        .catch(() => null),
    );
  }

  async collect(): Promise<ContainerScript[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null[]>((resolve) => {
      timer = setTimeout(() => resolve([]), BODY_WAIT_MS);
    });
    const settled: Array<ContainerScript | null> = await Promise.race([Promise.all(this.pending), timeout]);
    clearTimeout(timer);
    return settled.filter((script): script is ContainerScript => script !== null);
  }
}

const READABLE_MANAGERS = new Set(['google_tag_manager', 'matomo_tag_manager']);

function isReadableContainer(url: string): boolean {
  if (/\/ns\.html(\?|$)/.test(url)) return false;
  return matchUrl(url).some((match) => READABLE_MANAGERS.has(match.key) && match.role === 'loader');
}
