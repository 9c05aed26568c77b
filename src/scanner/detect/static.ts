import type { StaticFindings } from '../parse.js';
import {
  CMP_RULES,
  TRACKERS,
  cmpForCode,
  cmpForUrl,
  collectionUrlsInCode,
  consentCommandsInCode,
  matchCode,
  matchUrl,
  matchScriptAttributes,
  serverUrlsInCode,
  type TrackerKey,
} from '../signatures.js';
import type { Evidence } from '../schema.js';
import type { Hold } from '../signatures/holds.js';
import type { Account, Book } from './book.js';
import type { ConsentCommand } from './consent.js';
import type { ServerUrl } from './server-side.js';
import { classifyWithThirdPartyWeb } from './third-party-web.js';
import { endpointOf, hostOf, originOf, shorten } from './urls.js';

/** Stage 1 (static HTML): trackers and CMPs in script URLs, inline code and noscript pixels. */
export function collectStatic(
  book: Book,
  findings: StaticFindings,
  pageUrl: string,
): { codeCommands: ConsentCommand[]; serverUrls: ServerUrl[] } {
  collectScriptUrls(book, findings);
  collectScriptAttributes(book, findings);
  const fromCode = collectInlineScripts(book, findings, pageUrl);
  collectNoscript(book, findings);
  return fromCode;
}

/** Evidence text for a script a consent platform or a performance plug-in holds back. */
function holdNote(hold: Hold | null): string {
  if (!hold) return '';
  const by = hold.mechanism ?? 'an unnamed consent blocker';
  if (hold.by === 'consent') return ` (held for consent by ${by}: ${hold.markers})`;
  if (hold.by === 'worker') return ` (moved off the main thread by ${by}: ${hold.markers})`;
  return ` (delayed until the first interaction by ${by}: ${hold.markers})`;
}

/** Records how the static stage saw a tracker: running as written, or held back. */
function noteStatic(account: Account, hold: Hold | null): void {
  if (hold) account.holds.push(hold);
  else account.runsAsWritten = true;
}

/** A consent platform that parks a script names itself. */
function noteConsentBlocker(book: Book, hold: Hold | null): void {
  if (hold?.by === 'consent' && hold.mechanism && CMP_RULES.some((rule) => rule.name === hold.mechanism))
    book.addCmp(hold.mechanism, { kind: 'script', detail: `Scripts held for consent: ${hold.markers}` });
}

function collectScriptUrls(book: Book, findings: StaticFindings): void {
  const scriptUrls = [
    ...findings.scripts.filter((script) => script.src).map((script) => ({ url: script.src!, hold: script.hold })),
    ...findings.preloads.map((url) => ({ url, hold: null })),
  ];
  for (const { url, hold } of scriptUrls) {
    const note = holdNote(hold);
    noteConsentBlocker(book, hold);
    const host = hostOf(url);
    const matches = matchUrl(url);
    for (const match of matches) {
      const account = book.add(
        TRACKERS[match.key],
        { kind: 'script', detail: `<script src> — ${match.detail}${note}`, url: shorten(url, 2000) },
        match.ids,
      );
      noteStatic(account, hold);
      if (match.byHost && host) account.namedByHost ??= host;
      if (book.isFirstParty(host)) account.firstParty = true;
    }
    const cmp = cmpForUrl(url);
    if (cmp) book.addCmp(cmp.name, { kind: 'script', detail: `<script src> from ${host}`, url: shorten(url, 2000) });
    if (!matches.length && !cmp) {
      const account = classifyWithThirdPartyWeb(book, url, {
        kind: 'script',
        detail: `<script src> from ${host}${note}`,
        url: shorten(url, 2000),
      });
      if (account) noteStatic(account, hold);
    }
  }
}

function collectInlineScripts(
  book: Book,
  findings: StaticFindings,
  pageUrl: string,
): { codeCommands: ConsentCommand[]; serverUrls: ServerUrl[] } {
  const codeCommands: ConsentCommand[] = [];
  const serverUrls: ServerUrl[] = [];
  for (const script of findings.scripts) {
    if (script.src) continue;
    const note = holdNote(script.hold);
    noteConsentBlocker(book, script.hold);
    for (const match of matchCode(script.code)) {
      const account = book.add(TRACKERS[match.key], { kind: 'inline', detail: `${match.detail}${note}` }, [match.id]);
      noteStatic(account, script.hold);
    }
    const cmp = cmpForCode(script.code);
    if (cmp) book.addCmp(cmp.name, { kind: 'inline', detail: `${cmp.name} configuration in an inline script` });
    for (const found of collectionUrlsInCode(script.code))
      noteCollectionUrl(book, found.key, resolve(found.url, pageUrl), {
        kind: 'inline',
        detail: `${found.param}: ${shorten(found.url, 200)}`,
      });
    for (const command of consentCommandsInCode(script.code)) codeCommands.push({ ...command, source: 'code' });
    for (const found of serverUrlsInCode(script.code))
      serverUrls.push({ ...found, id: configIdAround(script.code, found.url), via: 'inline' });
  }
  return { codeCommands, serverUrls };
}

function collectNoscript(book: Book, findings: StaticFindings): void {
  for (const { tag, url, inHead } of findings.noscript) {
    const where = inHead ? ' in <head>' : '';
    const matches = matchUrl(url);
    for (const match of matches)
      book.add(
        TRACKERS[match.key],
        { kind: 'noscript', detail: `<noscript><${tag}>${where} — ${match.detail}`, url: shorten(url, 2000) },
        match.ids,
      );
    if (!matches.length)
      classifyWithThirdPartyWeb(book, url, {
        kind: 'noscript',
        detail: `<noscript><${tag}>${where} from ${hostOf(url)}`,
        url: shorten(url, 2000),
      });
  }
}

/** The gtag('config', ID, {...}) call a transport/server URL appears in, if any. */
function configIdAround(code: string, url: string): string | null {
  const index = code.indexOf(url);
  if (index < 0) return null;
  const before = code.slice(Math.max(0, index - 400), index);
  const calls = [...before.matchAll(/gtag\(\s*["']config["']\s*,\s*["']([A-Z]{1,3}-[A-Z0-9-]+)["']/g)];
  return calls.length ? calls[calls.length - 1][1] : null;
}

/** Tools configured through data-* attributes on their script tag (Plausible, Umami, Fathom, GoatCounter…). */
function collectScriptAttributes(book: Book, findings: StaticFindings): void {
  for (const script of findings.scripts) {
    for (const match of matchScriptAttributes(script.src, script.attributes)) {
      const evidence = { kind: 'script' as const, detail: `${match.detail}${holdNote(script.hold)}` };
      const account = book.add(
        TRACKERS[match.key],
        script.src ? { ...evidence, url: shorten(script.src, 2000) } : evidence,
        [match.id],
      );
      noteStatic(account, script.hold);
      if (book.isFirstParty(hostOf(script.src ?? ''))) account.firstParty = true;
      if (match.endpoint) noteCollectionUrl(book, match.key, match.endpoint, { kind: 'script', detail: match.detail });
    }
  }
}

/**
 * A collection URL a snippet configures. On the site's own domain it is a first-party proxy (or a self-hosted
 * install): the tool is first-party, and the endpoint is reported.
 */
function noteCollectionUrl(book: Book, key: TrackerKey, url: string, evidence: Evidence): void {
  const host = hostOf(url);
  const account = book.add(TRACKERS[key], { ...evidence, url: shorten(url, 2000) });
  if (!book.isFirstParty(host)) return;
  account.firstParty = true;
  account.serverSide = true;
  account.endpoints.add(endpointOf(url));
  book.addServer(
    {
      kind: evidence.kind,
      detail: `${account.info.name} sends to ${host}, the site's own domain: a first-party proxy`,
      url: shorten(url, 2000),
    },
    originOf(url),
  );
}

function resolve(url: string, base: string): string {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}
