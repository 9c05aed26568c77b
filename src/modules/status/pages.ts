import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../lib/errors.js';
import { requestOrigin } from '../../http/pagination.js';
import { html, Html, layout } from '../../web/html.js';
import { changelogFeed, renderChangelog } from './changelog.js';
import { statusAtom, statusRss } from './feed.js';
import { statusPageBody, tokenActionPage } from './page.js';

const Form = Type.Object({
  token: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  webhook_url: Type.Optional(Type.String()),
});
const TokenQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });

/** The status page, its feeds and forms (no JavaScript needed), and the changelog: HTML and XML for people. */
export const statusPageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { status, statusSubscriptions: subscriptions } = app.services;
  const base = (request: FastifyRequest) => app.config.publicBaseUrl ?? requestOrigin(request);
  const { publicBaseUrl } = app.config;
  // Forms post urlencoded bodies; only these routes (this plugin's scope) read them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const sendPage = (reply: FastifyReply, title: string, body: Html, code = 200) =>
    reply
      .code(code)
      .type('text/html; charset=utf-8')
      .send(layout({ title, body, styles: ['/assets/status.css'], modules: ['/assets/status.js'] }));

  const statusPage = async (reply: FastifyReply, notice?: string, code = 200) =>
    sendPage(
      reply.header('refresh', '60'),
      'Status',
      statusPageBody(await status.snapshot(), notice, subscriptions.emailAvailable(publicBaseUrl)),
      code,
    );

  app.get('/status', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    statusPage(reply),
  );

  app.get('/status/feed.atom', { config: { public: true }, schema: { hide: true } }, async (request, reply) =>
    reply.type('application/atom+xml; charset=utf-8').send(statusAtom(await status.snapshot(), base(request))),
  );
  app.get('/status/feed.rss', { config: { public: true }, schema: { hide: true } }, async (request, reply) =>
    reply.type('application/rss+xml; charset=utf-8').send(statusRss(await status.snapshot(), base(request))),
  );

  /** A form's outcome shown on the page: the API error's message on failure (never a 500 for bad input). */
  const outcome = async (reply: FastifyReply, run: () => Promise<string>) => {
    try {
      return await statusPage(reply, await run());
    } catch (error) {
      if (!(error instanceof AppError) || (error.statusCode >= 500 && error.statusCode !== 503)) throw error;
      return statusPage(reply, error.message, error.statusCode);
    }
  };

  app.post(
    '/status/subscribe',
    { config: { public: true }, schema: { hide: true, body: Form } },
    async (request, reply) =>
      outcome(reply, async () => {
        const { email, webhook_url } = request.body;
        const result = await subscriptions.subscribe(
          email ? { email } : { webhook_url: webhook_url ?? '' },
          publicBaseUrl,
        );
        return result.type === 'email'
          ? 'Check your inbox: follow the link in the email we sent to confirm the subscription.'
          : `The webhook is subscribed.${result.unsubscribe_token ? ` Keep this unsubscribe token: ${result.unsubscribe_token}` : ''}`;
      }),
  );

  for (const action of ['confirm', 'unsubscribe'] as const) {
    app.get(
      `/status/${action}`,
      { config: { public: true }, schema: { hide: true, querystring: TokenQuery } },
      async (request, reply) =>
        sendPage(reply, 'Status subscription', tokenActionPage(action, request.query.token ?? '')),
    );
    app.post(
      `/status/${action}`,
      { config: { public: true }, schema: { hide: true, body: Form } },
      async (request, reply) =>
        outcome(reply, async () => {
          const token = request.body.token ?? '';
          if (action === 'confirm') {
            await subscriptions.confirm(token);
            return 'Subscription confirmed: you will get an email for each incident update and maintenance window.';
          }
          await subscriptions.unsubscribe(token);
          return 'You are unsubscribed and will get no more status notices.';
        }),
    );
  }

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
