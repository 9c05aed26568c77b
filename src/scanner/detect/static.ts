import type { StaticFindings } from '../parse.js';
import {
  TRACKERS,
  cmpForCode,
  cmpForUrl,
  consentCommandsInCode,
  matchCode,
  matchUrl,
  serverUrlsInCode,
} from '../signatures.js';
import type { Book } from './book.js';
import type { ConsentCommand } from './consent.js';
import type { ServerUrl } from './server-side.js';
import { classifyWithThirdPartyWeb } from './third-party-web.js';
import { hostOf, shorten } from './urls.js';

/** Stage 1 (static HTML): trackers and CMPs in script URLs, inline code and noscript pixels. */
export function collectStatic(
  book: Book,
  findings: StaticFindings,
): { codeCommands: ConsentCommand[]; serverUrls: ServerUrl[] } {
  collectScriptUrls(book, findings);
  const fromCode = collectInlineScripts(book, findings);
  collectNoscript(book, findings);
  return fromCode;
}

function collectScriptUrls(book: Book, findings: StaticFindings): void {
  const scriptUrls = [
    ...findings.scripts.filter((script) => script.src).map((script) => ({ url: script.src!, gated: script.gated })),
    ...findings.preloads.map((url) => ({ url, gated: null })),
  ];
  for (const { url, gated } of scriptUrls) {
    const note = gated ? ` (held until consent: ${gated})` : '';
    const host = hostOf(url);
    const matches = matchUrl(url);
    for (const match of matches) {
      const account = book.add(
        TRACKERS[match.key],
        { kind: 'script', detail: `<script src> — ${match.detail}${note}`, url: shorten(url, 2000) },
        match.ids,
      );
      if (book.isFirstParty(host)) account.firstParty = true;
    }
    const cmp = cmpForUrl(url);
    if (cmp) book.addCmp(cmp.name, { kind: 'script', detail: `<script src> from ${host}`, url: shorten(url, 2000) });
    if (!matches.length && !cmp)
      classifyWithThirdPartyWeb(book, url, {
        kind: 'script',
        detail: `<script src> from ${host}${note}`,
        url: shorten(url, 2000),
      });
  }
}

function collectInlineScripts(
  book: Book,
  findings: StaticFindings,
): { codeCommands: ConsentCommand[]; serverUrls: ServerUrl[] } {
  const codeCommands: ConsentCommand[] = [];
  const serverUrls: ServerUrl[] = [];
  for (const script of findings.scripts) {
    if (script.src) continue;
    const note = script.gated ? ` (held until consent: ${script.gated})` : '';
    for (const match of matchCode(script.code)) {
      book.add(TRACKERS[match.key], { kind: 'inline', detail: `${match.detail}${note}` }, [match.id]);
    }
    const cmp = cmpForCode(script.code);
    if (cmp) book.addCmp(cmp.name, { kind: 'inline', detail: `${cmp.name} configuration in an inline script` });
    for (const command of consentCommandsInCode(script.code)) codeCommands.push({ ...command, source: 'code' });
    for (const found of serverUrlsInCode(script.code))
      serverUrls.push({ ...found, id: configIdAround(script.code, found.url), via: 'inline' });
  }
  return { codeCommands, serverUrls };
}

function collectNoscript(book: Book, findings: StaticFindings): void {
  for (const { tag, url } of findings.noscript) {
    const matches = matchUrl(url);
    for (const match of matches)
      book.add(
        TRACKERS[match.key],
        { kind: 'noscript', detail: `<noscript><${tag}> — ${match.detail}`, url: shorten(url, 2000) },
        match.ids,
      );
    if (!matches.length)
      classifyWithThirdPartyWeb(book, url, {
        kind: 'noscript',
        detail: `<noscript><${tag}> from ${hostOf(url)}`,
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
