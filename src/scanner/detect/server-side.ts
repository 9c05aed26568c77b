import type { Evidence, ServerSideResult } from '../schema.js';
import { TRACKERS, type TrackerKey } from '../signatures.js';
import { GOOGLE_KEYS, infoForId, type Book } from './book.js';
import { originOf, shorten } from './urls.js';

/** A transport_url / server_container_url setting, from inline code or from a gtag config in the dataLayer. */
export interface ServerUrl {
  param: string;
  url: string;
  /** The tag id of the config call it belongs to, when known. */
  id: string | null;
  via: Evidence['kind'];
}

/**
 * Runs after both stages: a server URL makes the tracker it is configured for (or every Google tracker found)
 * server-side, and so do hits to a known server-side endpoint, whatever the vendor.
 */
export function markServerSide(book: Book, serverUrls: ServerUrl[]): void {
  for (const found of serverUrls) {
    const origin = originOf(found.url);
    const evidence: Evidence = {
      kind: found.via === 'global' ? 'global' : 'inline',
      detail: `${found.param} set${found.id ? ` for ${found.id}` : ''}: ${shorten(found.url, 200)}`,
      url: shorten(found.url, 2000),
    };
    book.addServer(evidence, origin);
    const info = found.id ? infoForId(found.id) : null;
    const targets = info ? [info.key] : GOOGLE_KEYS.filter((key) => book.has(key));
    for (const key of targets) {
      const account = book.add(TRACKERS[key as TrackerKey], evidence, found.id ? [found.id] : []);
      account.serverSide = true;
    }
  }
  for (const account of book.accounts.values()) {
    if (account.requests.some((request) => book.endpoints.has(originOf(request.url) ?? ''))) account.serverSide = true;
  }
}

export function serverSideResult(book: Book): ServerSideResult {
  return {
    detected: book.serverEvidence.length > 0 || book.endpoints.size > 0,
    evidence: book.serverEvidence,
    endpoints: [...book.endpoints].sort(),
  };
}
