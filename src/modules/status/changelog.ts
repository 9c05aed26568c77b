import { Marked } from 'marked';
import { escapeHtml } from '../../web/html.js';

/** A release of CHANGELOG.md (Keep a Changelog): `## <version> — <YYYY-MM-DD>` and its sections. */
export interface Release {
  version: string;
  date: string;
  anchor: string;
  markdown: string;
}

const RELEASE_HEADING = /^## (\S+) [—–-] (\d{4}-\d{2}-\d{2})\s*$/;

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function releasesOf(markdown: string): Release[] {
  const releases: Release[] = [];
  for (const line of markdown.split('\n')) {
    const heading = RELEASE_HEADING.exec(line);
    if (heading) releases.push({ version: heading[1], date: heading[2], anchor: slug(heading[1]), markdown: '' });
    else if (releases.length > 0) releases[releases.length - 1].markdown += `${line}\n`;
  }
  return releases;
}

/**
 * The changelog as HTML with an anchor on every heading: a release is `#<version>` (`#0-2-0`), a section of it
 * `#<version>-<section>` (`#0-2-0-deprecated`), so deprecation links can point at their announcement. A
 * release's sections rendered alone (the feed) are given its anchor.
 */
export function renderChangelog(markdown: string, releaseAnchor = ''): string {
  let release = releaseAnchor;
  const marked = new Marked({
    renderer: {
      heading({ tokens, depth, text }) {
        const inner = this.parser.parseInline(tokens);
        const version = depth === 2 ? RELEASE_HEADING.exec(`## ${text}`)?.[1] : undefined;
        if (depth === 2) release = version ? slug(version) : slug(text);
        const id = depth === 2 ? release : depth > 2 && release ? `${release}-${slug(text)}` : slug(text);
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}">${inner}</a></h${depth}>\n`;
      },
    },
  });
  return marked.parse(markdown, { async: false }) as string;
}

/** An Atom feed of the releases, newest first, each linking to its anchor on /changelog. */
export function changelogFeed(markdown: string, baseUrl: string): string {
  const releases = releasesOf(markdown).sort((a, b) => b.date.localeCompare(a.date));
  const updated = releases[0]?.date ?? '1970-01-01';
  const entries = releases.map(
    (release) => `  <entry>
    <id>urn:tagport:changelog:${escapeHtml(release.version)}</id>
    <title>Tagport ${escapeHtml(release.version)}</title>
    <updated>${release.date}T00:00:00Z</updated>
    <link rel="alternate" type="text/html" href="${escapeHtml(`${baseUrl}/changelog#${release.anchor}`)}"/>
    <content type="html">${escapeHtml(renderChangelog(release.markdown, release.anchor))}</content>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:tagport:changelog</id>
  <title>Tagport changelog</title>
  <updated>${updated}T00:00:00Z</updated>
  <link rel="self" type="application/atom+xml" href="${escapeHtml(`${baseUrl}/changelog.atom`)}"/>
  <link rel="alternate" type="text/html" href="${escapeHtml(`${baseUrl}/changelog`)}"/>
${entries.join('\n')}
</feed>
`;
}
