import { Parser } from 'htmlparser2';

/** Stage 1 HTML analysis: what the page's HTML contains, before any script runs. */

export interface StaticScript {
  /** Absolute URL for external scripts, null for inline ones. */
  src: string | null;
  code: string;
  /**
   * Set when the script is held back until consent by a CMP (type="text/plain" and similar),
   * e.g. 'type="text/plain" data-cookieconsent="marketing"'.
   */
  gated: string | null;
}

export interface StaticFindings {
  scripts: StaticScript[];
  /** Script URLs announced with <link rel="preload" as="script"> or modulepreload. */
  preloads: string[];
  /** img/iframe/script URLs inside <noscript>, and raw noscript markup. */
  noscript: Array<{ tag: string; url: string }>;
  noscriptMarkup: string[];
  meta: { charset: string | null; refresh: string | null; generator: string | null };
  title: string | null;
}

const EXECUTABLE_TYPES =
  /^(|text\/javascript|application\/javascript|module|text\/ecmascript|application\/ecmascript|text\/jscript)$/i;
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

function gatingOf(attributes: Record<string, string>): string | null {
  const type = (attributes.type ?? '').trim();
  if (EXECUTABLE_TYPES.test(type)) return null;
  if (
    !/^text\/plain$/i.test(type) &&
    !attributes['data-cookieconsent'] &&
    !attributes['data-usercentrics'] &&
    !attributes['data-category']
  )
    return null;
  const markers = [
    'data-cookieconsent',
    'data-usercentrics',
    'data-category',
    'data-cmplz-src',
    'data-service',
    'data-src',
  ]
    .filter((name) => attributes[name] !== undefined)
    .map((name) => `${name}="${attributes[name]}"`);
  if (attributes.class && /optanon-category|_iub_cs_activate|cmplz/.test(attributes.class))
    markers.push(`class="${attributes.class}"`);
  return [`type="${type}"`, ...markers].join(' ');
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
  let current: { src: string | null; gated: string | null; keep: boolean; chunks: string[] } | null = null;
  let noscriptDepth = 0;
  let noscriptStart = -1;
  let inlineBytes = 0;
  let inTitle = false;
  let titleText = '';

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        switch (name) {
          case 'base':
            base = absolute(attributes.href, pageUrl) ?? base;
            break;
          case 'script': {
            const gated = gatingOf(attributes);
            const executable = EXECUTABLE_TYPES.test((attributes.type ?? '').trim());
            const srcValue =
              attributes.src ?? (gated ? (attributes['data-src'] ?? attributes['data-cmplz-src']) : undefined);
            current = { src: absolute(srcValue, base), gated, keep: executable || gated !== null, chunks: [] };
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
          if (url) findings.noscript.push({ tag: name, url });
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
        if (name === 'script' && current) {
          const code = current.chunks.join('');
          if (current.src) findings.scripts.push({ src: current.src, code: '', gated: current.gated });
          else if (current.keep && code.trim()) findings.scripts.push({ src: null, code, gated: current.gated });
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
