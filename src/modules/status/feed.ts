import { escapeHtml } from '../../web/html.js';
import type { StatusDocument } from './service.js';

interface Entry {
  id: string;
  title: string;
  updated: string;
  link: string;
  text: string;
}

/** Incidents (each with its updates, newest first) and maintenance windows, most recently changed first. */
function entries(document: StatusDocument, baseUrl: string): Entry[] {
  const incidents = [...document.open_incidents, ...document.recent_incidents].map((incident) => ({
    id: `urn:tagport:status:${incident.id}`,
    title: `${incident.resolved_at ? 'Resolved' : incident.stage[0].toUpperCase() + incident.stage.slice(1)}: ${incident.title}`,
    updated: incident.updates[0]?.created_at ?? incident.opened_at,
    link: `${baseUrl}/status#${incident.id}`,
    text: incident.updates.map((update) => `${update.created_at} ${update.status}: ${update.message}`).join('\n'),
  }));
  const maintenance = document.maintenance.map((window) => ({
    id: `urn:tagport:status:${window.id}`,
    title: `Maintenance (${window.state.replace('_', ' ')}): ${window.title}`,
    updated: window.starts_at,
    link: `${baseUrl}/status#${window.id}`,
    text: `${window.starts_at} to ${window.ends_at}: ${window.message}`,
  }));
  return [...incidents, ...maintenance].sort((a, b) => b.updated.localeCompare(a.updated));
}

export function statusAtom(document: StatusDocument, baseUrl: string): string {
  const list = entries(document, baseUrl);
  const items = list.map(
    (entry) => `  <entry>
    <id>${escapeHtml(entry.id)}</id>
    <title>${escapeHtml(entry.title)}</title>
    <updated>${entry.updated}</updated>
    <link rel="alternate" type="text/html" href="${escapeHtml(entry.link)}"/>
    <content type="text">${escapeHtml(entry.text)}</content>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:tagport:status</id>
  <title>Tagport status</title>
  <updated>${list[0]?.updated ?? document.updated_at}</updated>
  <link rel="self" type="application/atom+xml" href="${escapeHtml(`${baseUrl}/status/feed.atom`)}"/>
  <link rel="alternate" type="text/html" href="${escapeHtml(`${baseUrl}/status`)}"/>
${items.join('\n')}
</feed>
`;
}

export function statusRss(document: StatusDocument, baseUrl: string): string {
  const items = entries(document, baseUrl).map(
    (entry) => `    <item>
      <guid isPermaLink="false">${escapeHtml(entry.id)}:${entry.updated}</guid>
      <title>${escapeHtml(entry.title)}</title>
      <link>${escapeHtml(entry.link)}</link>
      <pubDate>${new Date(entry.updated).toUTCString()}</pubDate>
      <description>${escapeHtml(entry.text)}</description>
    </item>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0">
  <channel>
    <title>Tagport status</title>
    <link>${escapeHtml(`${baseUrl}/status`)}</link>
    <description>Incidents and maintenance of Tagport</description>
${items.join('\n')}
  </channel>
</rss>
`;
}
