import { Parser } from 'htmlparser2';
import { heldSrc, holdOf, isExecutableType, type Hold } from './signatures/holds.js';

/** Stage 1 HTML analysis: what the page's HTML contains, before any script runs. */

export interface StaticScript {
  /** Absolute URL for external scripts (a held script's parked src included), null for inline ones. */
  src: string | null;
  code: string;
  /** Set when a consent platform or a performance plug-in holds the script back (see signatures/holds.ts). */
  hold: Hold | null;
  /** The script element's id and data-* attributes (configuration of tags such as Plausible or Umami). */
  attributes: Record<string, string>;
}

export interface StaticFindings {
  scripts: StaticScript[];
  /** Script URLs announced with <link rel="preload" as="script"> or modulepreload. */
  preloads: string[];
  /** img/iframe/script URLs inside <noscript> (never loaded by a browser with JavaScript), and raw noscript markup. */
  noscript: Array<{ tag: string; url: string; inHead: boolean }>;
  noscriptMarkup: string[];
  meta: { charset: string | null; refresh: string | null; generator: string | null };
  title: string | null;
}

const MAX_INLINE_BYTES = 2_000_000;

function absolute(value: string | undefined, base: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function scriptAttributes(attributes: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes).slice(0, 40))
    if (name === 'id' || name.startsWith('data-')) kept[name] = value.slice(0, 300);
  return kept;
}

export function parseHtml(html: string, pageUrl: string): StaticFindings {
  const findings: StaticFindings = {
    scripts: [],
    preloads: [],
    noscript: [],
    noscriptMarkup: [],
    meta: { charset: null, refresh: null, generator: null },
    title: null,
  };
  let base = pageUrl;
  let current: {
    src: string | null;
    hold: Hold | null;
    attributes: Record<string, string>;
    keep: boolean;
    chunks: string[];
  } | null = null;
  // Content of <template> is inert: nothing in it loads or runs until a script clones it.
  let templateDepth = 0;
  let inHead = false;
  let noscriptDepth = 0;
  let noscriptStart = -1;
  let inlineBytes = 0;
  let inTitle = false;
  let titleText = '';

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'template') templateDepth++;
        if (templateDepth > 0) return;
        if (name === 'head') inHead = true;
        if (name === 'body') inHead = false;
        switch (name) {
          case 'base':
            base = absolute(attributes.href, pageUrl) ?? base;
            break;
          case 'script': {
            const executable = isExecutableType(attributes.type);
            const hold = executable ? null : holdOf(attributes);
            const srcValue = executable ? attributes.src : hold ? heldSrc(attributes) : undefined;
            current = {
              src: absolute(srcValue, base),
              hold,
              attributes: scriptAttributes(attributes),
              keep: executable || hold !== null,
              chunks: [],
            };
            break;
          }
          case 'link':
            if (
              /\b(preload|modulepreload)\b/i.test(attributes.rel ?? '') &&
              (attributes.as === 'script' || /modulepreload/i.test(attributes.rel ?? ''))
            ) {
              const href = absolute(attributes.href, base);
              if (href) findings.preloads.push(href);
            }
            break;
          case 'meta': {
            if (attributes.charset) findings.meta.charset = attributes.charset.trim();
            const equiv = (attributes['http-equiv'] ?? '').toLowerCase();
            if (equiv === 'content-type' && attributes.content) {
              const charset = /charset=([\w-]+)/i.exec(attributes.content);
              if (charset) findings.meta.charset = charset[1];
            }
            if (equiv === 'refresh' && attributes.content) findings.meta.refresh = attributes.content.slice(0, 500);
            if ((attributes.name ?? '').toLowerCase() === 'generator' && attributes.content)
              findings.meta.generator = attributes.content.slice(0, 200);
            break;
          }
          case 'noscript':
            if (noscriptDepth++ === 0) noscriptStart = parser.endIndex + 1;
            break;
          case 'title':
            inTitle = findings.title === null;
            break;
        }
        if (noscriptDepth > 0 && (name === 'img' || name === 'iframe' || name === 'script')) {
          const url = absolute(attributes.src, base);
          if (url) findings.noscript.push({ tag: name, url, inHead });
        }
      },
      ontext(text) {
        if (current && current.src === null && current.keep && inlineBytes < MAX_INLINE_BYTES) {
          current.chunks.push(text);
          inlineBytes += text.length;
        }
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (name === 'template' && templateDepth > 0) {
          templateDepth--;
          return;
        }
        if (templateDepth > 0) return;
        if (name === 'head') inHead = false;
        if (name === 'script' && current) {
          const code = current.chunks.join('');
          const { src, hold, attributes, keep } = current;
          if (src && keep) findings.scripts.push({ src, code: '', hold, attributes });
          else if (!src && keep && code.trim()) findings.scripts.push({ src: null, code, hold, attributes });
          current = null;
        } else if (name === 'noscript' && noscriptDepth > 0) {
          if (--noscriptDepth === 0 && noscriptStart >= 0) {
            findings.noscriptMarkup.push(html.slice(noscriptStart, parser.startIndex).slice(0, 20_000));
          }
        } else if (name === 'title' && inTitle) {
          inTitle = false;
          findings.title = titleText.trim().slice(0, 300);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return findings;
}
