import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Nullable, StringEnum, withMeta } from '../../http/schemas.js';
import { html, Html, layout } from '../../web/html.js';
import { changelogFeed, renderChangelog } from './changelog.js';

const State = StringEnum(['operational', 'degraded', 'outage'] as const);
const PlatformIncident = Type.Object(
  {
    id: Type.String(),
    component: Type.String(),
    title: Type.String(),
    status: StringEnum(['open', 'resolved'] as const),
    opened_at: Type.String({ format: 'date-time' }),
    resolved_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
const StatusDocument = Type.Object(
  {
    status: State,
    components: Type.Array(
      Type.Object({ name: Type.String(), status: State, detail: Type.String() }, { additionalProperties: false }),
    ),
    open_incidents: Type.Array(PlatformIncident),
    recent_incidents: Type.Array(PlatformIncident, { description: 'Resolved incidents of the last 30 days.' }),
    queues: Type.Array(
      Type.Object(
        {
          name: Type.String({
            description: '`scans`, `webhook deliveries`, `container transitions`, `report builds`.',
          }),
          waiting: Type.Integer({ description: 'Jobs due and waiting for a worker.' }),
          running: Type.Integer({ description: 'Jobs a worker is running.' }),
          oldest_wait_seconds: Type.Number({ description: 'How long the oldest waiting job has waited.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The job queues workers take work from; empty while the database cannot be read.' },
    ),
    updated_at: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'PlatformStatus',
    additionalProperties: false,
    description:
      "Tagport's own state, from its health checks (run every 30 s; an incident opens after two failed checks).",
  },
);

const LABELS = { operational: 'Operational', degraded: 'Degraded', outage: 'Outage' } as const;

export const statusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const status = app.services.status;

  app.get('/api/status.json', {
    config: { public: true },
    schema: {
      operationId: 'getPlatformStatus',
      summary: 'Platform status',
      description:
        "Tagport's own state as JSON: overall and per component, with the open platform incidents and those resolved in the last 30 days (the data of the `/status` page). No credentials needed.",
      tags: ['System'],
      security: [],
      response: { 200: withMeta(StatusDocument), ...errorResponses() },
    },
    handler: async () => status.snapshot(),
  });

  app.get('/status', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    const snapshot = await status.snapshot();
    const incidentList = (items: typeof snapshot.open_incidents) =>
      items.length
        ? html`<ul>${items.map((incident) => html`<li><strong>${incident.component}</strong>: ${incident.title} <span class="hint">opened ${incident.opened_at}${incident.resolved_at ? `, resolved ${incident.resolved_at}` : ''}</span></li>`)}</ul>`
        : html`<p>None.</p>`;
    const body = html`
<h1>Tagport status: <span class="status-${snapshot.status === 'operational' ? 'active' : 'failed'}">${LABELS[snapshot.status]}</span></h1>
<p class="hint">Updated ${snapshot.updated_at}. Machine-readable: <a href="/api/status.json">/api/status.json</a> · <a href="/changelog">Changelog</a></p>
<div class="table-wrap"><table><caption class="sr-only">Components</caption><thead><tr><th scope="col">Component</th><th scope="col">State</th><th scope="col">Detail</th></tr></thead>
<tbody>${snapshot.components.map((component) => html`<tr><td>${component.name}</td><td class="status-${component.status === 'operational' ? 'active' : 'failed'}">${LABELS[component.status]}</td><td>${component.detail}</td></tr>`)}</tbody></table></div>
<h2>Queues</h2>
<div class="table-wrap"><table><caption class="sr-only">Queues</caption><thead><tr><th scope="col">Queue</th><th scope="col">Waiting</th><th scope="col">Running</th><th scope="col">Oldest wait</th></tr></thead>
<tbody>${snapshot.queues.map((queue) => html`<tr><td>${queue.name}</td><td>${String(queue.waiting)}</td><td>${String(queue.running)}</td><td>${String(queue.oldest_wait_seconds)} s</td></tr>`)}</tbody></table></div>
<h2>Open incidents</h2>${incidentList(snapshot.open_incidents)}
<h2>Past 30 days</h2>${incidentList(snapshot.recent_incidents)}`;
    return reply
      .type('text/html; charset=utf-8')
      .header('refresh', '60')
      .send(layout({ title: 'Status', body }));
  });

  const changelogFile = path.resolve('CHANGELOG.md');
  const changelog = () =>
    fs.existsSync(changelogFile) ? fs.readFileSync(changelogFile, 'utf8') : '# Changelog\n\nNo entries yet.';
  app.get('/changelog', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    const rendered = new Html(renderChangelog(changelog()));
    const feed = html`<p class="hint"><a href="/changelog.atom" type="application/atom+xml">Atom feed</a></p>`;
    return reply
      .type('text/html; charset=utf-8')
      .send(layout({ title: 'Changelog', body: html`${feed}<article class="changelog">${rendered}</article>` }));
  });
  app.get('/changelog.atom', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    return reply
      .type('application/atom+xml; charset=utf-8')
      .send(changelogFeed(changelog(), `${request.protocol}://${request.host}`));
  });
};
