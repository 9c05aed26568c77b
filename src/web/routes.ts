import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { SESSION_COOKIE } from '../http/auth.js';
import { HttpCodes } from '../http/errors.js';
import { errorResponses, withMeta } from '../http/schemas.js';
import { ScanRequestBody } from '../modules/tracking-checker/schemas.js';
import { ScanResultSchema } from '../scanner/schema.js';
import { bundledScript } from './browser-bundle.js';
import { layout, type Html } from './html.js';
import {
  apiKeysPage,
  checkerPage,
  containersPage,
  loginPage,
  monitorPage,
  monitorsPage,
  overviewPage,
  reportsPage,
  scanResultPage,
  scansPage,
  securityPage,
  setupPage,
} from './pages.js';
import { invitePage, teamPage } from './team-pages.js';
import { notificationsPage } from './notification-pages.js';
import { metaPixelsPage } from './pixel-pages.js';
import { outgoingLogPage } from './outgoing-log-page.js';
import { trackingMonitorPage, trackingMonitorsPage } from './tracking-monitor-pages.js';
import { TrackingCheckerErrors } from '../modules/tracking-checker/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Static files served from memory: our own assets and the chart library from node_modules (no CDN). */
const ASSETS: Record<string, { file: string; type: string }> = {
  'app.css': { file: path.join(here, 'assets', 'app.css'), type: 'text/css; charset=utf-8' },
  'status.css': { file: path.join(here, 'assets', 'status.css'), type: 'text/css; charset=utf-8' },
  'small-screens.css': {
    file: path.join(here, 'assets', 'small-screens.css'),
    type: 'text/css; charset=utf-8',
  },
  'meta-pixels.css': { file: path.join(here, 'assets', 'meta-pixels.css'), type: 'text/css; charset=utf-8' },
  'outgoing-log.css': { file: path.join(here, 'assets', 'outgoing-log.css'), type: 'text/css; charset=utf-8' },
  'container-settings.css': {
    file: path.join(here, 'assets', 'container-settings.css'),
    type: 'text/css; charset=utf-8',
  },
  'tracking-monitors.css': {
    file: path.join(here, 'assets', 'tracking-monitors.css'),
    type: 'text/css; charset=utf-8',
  },
  'favicon.svg': { file: path.join(here, 'assets', 'favicon.svg'), type: 'image/svg+xml' },
  'chart.js': { file: path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js'), type: JAVASCRIPT },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export const webRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const assets = new Map(
    Object.entries(ASSETS).map(([name, asset]) => [name, { body: fs.readFileSync(asset.file), type: asset.type }]),
  );

  app.get(
    '/assets/:name',
    { config: { public: true }, schema: { hide: true, params: Type.Object({ name: Type.String() }) } },
    async (request, reply) => {
      const script = await bundledScript(request.params.name);
      const asset = script ? { body: script, type: JAVASCRIPT } : assets.get(request.params.name);
      if (!asset) return reply.code(404).type('text/plain').send('Not found');
      return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
    },
  );

  // Browsers ask for /favicon.ico whatever the page says: both names serve the SVG icon.
  for (const url of ['/favicon.ico', '/favicon.svg'])
    app.get(url, { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
      const icon = assets.get('favicon.svg')!;
      return reply.type(icon.type).header('cache-control', 'public, max-age=86400').send(icon.body);
    });

  async function sessionUser(request: FastifyRequest) {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await app.services.auth.verifySession(token) : null;
    if (!session) return null;
    const described = await app.services.users.describe(session.userId, session.tenantId, session.role);
    const tenant = described.memberships.find((membership) => membership.tenant_id === session.tenantId);
    return { name: described.user.name, tenantName: tenant?.tenant_name ?? session.tenantId };
  }

  function page(
    reply: FastifyReply,
    title: string,
    body: Html,
    user: Awaited<ReturnType<typeof sessionUser>>,
    current?: string,
    scripts?: string[],
    styles?: string[],
  ) {
    return reply
      .headers(SECURITY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(layout({ title, body, user, current, scripts, styles }));
  }

  const dashboard =
    (title: string, current: string, body: (request: FastifyRequest) => Html, scripts?: string[], styles?: string[]) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await sessionUser(request);
      if (!user) return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`);
      return page(reply, title, body(request), user, current, scripts, styles);
    };

  const hidden = { config: { public: true }, schema: { hide: true } };
  app.get('/', hidden, async (request, reply) =>
    reply.redirect((await sessionUser(request)) ? '/dashboard' : '/check'),
  );
  app.get('/login', hidden, async (_request, reply) => {
    if (await app.services.users.needsSetup()) return reply.redirect('/setup');
    return page(reply, 'Sign in', loginPage(), null);
  });
  app.get('/setup', hidden, async (request, reply) => {
    const state = await app.services.users.setupState();
    if (state === 'done') return reply.redirect('/login');
    const token = (request.query as { token?: unknown }).token;
    return page(
      reply,
      'Set up',
      setupPage({ tokenRequired: state === 'token_required', token: typeof token === 'string' ? token : '' }),
      null,
    );
  });
  app.get('/check', hidden, async (request, reply) =>
    page(reply, 'Tracking checker', checkerPage(), await sessionUser(request), undefined, ['/assets/chart.js']),
  );
  app.get('/dashboard', hidden, dashboard('Overview', '/dashboard', overviewPage));
  app.get('/dashboard/api-keys', hidden, dashboard('API keys', '/dashboard/api-keys', apiKeysPage));
  app.get('/dashboard/scans', hidden, dashboard('Scans', '/dashboard/scans', scansPage));
  app.get(
    '/dashboard/containers',
    hidden,
    dashboard(
      'Containers',
      '/dashboard/containers',
      () => containersPage(app.services.containers.sgtmUnavailable),
      ['/assets/chart.js'],
      ['/assets/container-settings.css'],
    ),
  );
  app.get(
    '/dashboard/containers/:id/meta-pixels',
    hidden,
    dashboard(
      'Meta pixels',
      '/dashboard/containers',
      (request) => metaPixelsPage((request.params as { id: string }).id),
      [],
      ['/assets/meta-pixels.css'],
    ),
  );
  app.get(
    '/dashboard/containers/:id/outgoing-log',
    hidden,
    dashboard(
      'Outgoing log',
      '/dashboard/containers',
      (request) => outgoingLogPage((request.params as { id: string }).id),
      [],
      ['/assets/outgoing-log.css'],
    ),
  );
  app.get('/dashboard/monitors', hidden, dashboard('Monitors', '/dashboard/monitors', monitorsPage));
  app.get(
    '/dashboard/monitors/:id',
    hidden,
    dashboard('Monitor', '/dashboard/monitors', (request) => monitorPage((request.params as { id: string }).id), [
      '/assets/chart.js',
    ]),
  );
  app.get(
    '/dashboard/tracking-monitors',
    hidden,
    dashboard(
      'Tracking monitors',
      '/dashboard/tracking-monitors',
      trackingMonitorsPage,
      [],
      ['/assets/tracking-monitors.css'],
    ),
  );
  app.get(
    '/dashboard/tracking-monitors/:id',
    hidden,
    dashboard(
      'Tracking monitor',
      '/dashboard/tracking-monitors',
      (request) => trackingMonitorPage((request.params as { id: string }).id),
      [],
      ['/assets/tracking-monitors.css'],
    ),
  );
  app.get(
    '/dashboard/notifications',
    hidden,
    dashboard('Notifications', '/dashboard/notifications', () =>
      notificationsPage({ mailConfigured: app.services.mailer.configured }),
    ),
  );
  app.get('/dashboard/reports', hidden, dashboard('Reports', '/dashboard/reports', reportsPage));
  app.get('/dashboard/security', hidden, dashboard('Security', '/dashboard/security', securityPage));
  app.get('/dashboard/team', hidden, dashboard('Team', '/dashboard/team', teamPage));
  // The address holds the invitation token: logged only at warn and above, so it stays out of the request log.
  app.get('/invite/:token', { ...hidden, logLevel: 'warn' }, async (request, reply) =>
    page(reply, 'Join a team', invitePage(), await sessionUser(request)),
  );
  app.get<{ Params: { id: string } }>(
    '/dashboard/scans/:id',
    hidden,
    dashboard('Scan', '/dashboard/scans', (request) => scanResultPage((request.params as { id: string }).id), [
      '/assets/chart.js',
    ]),
  );

  app.post('/api/public/tracking-checker/scan/', {
    config: { public: true },
    schema: {
      operationId: 'publicScanPage',
      summary: 'Scan a page (public checker)',
      description:
        'The public tracking checker behind /check: the same scanner without an API key, limited per IP address (see `PUBLIC_SCANS_PER_HOUR`). Results are not stored.',
      tags: ['Tracking checker'],
      security: [],
      body: ScanRequestBody,
      response: {
        200: withMeta(ScanResultSchema),
        ...errorResponses(HttpCodes.urlNotAllowed, TrackingCheckerErrors.targetUnreachable, HttpCodes.publicScanLimit),
      },
    },
    handler: async (request, reply) => {
      await app.rateLimits.consumePublicScan(request, reply);
      return app.services.trackingChecker.scanAnonymously(request.body, request.id);
    },
  });
};
