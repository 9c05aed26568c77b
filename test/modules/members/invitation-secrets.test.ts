import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { recordOperationHits } from '../../helpers/operation-hits.js';
import { freePort } from '../../helpers/processes.js';

const SMTP_PASSWORD = 'smtp-secret-hunter2';

describe('invitation tokens and SMTP credentials stay out of the log', () => {
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let token: string;
  const lines: string[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase('pglite');
    // Nothing listens on this port: every send fails.
    const smtpUrl = `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${await freePort()}`;
    app = await buildApp({
      config: testConfig({
        logLevel: 'info',
        runWorkers: false,
        mail: { smtpUrl, from: 'Tagport <t@example.com>' },
        publicBaseUrl: 'https://tagport.example',
      }),
      database: testDatabase.database,
      logStream: { write: (line) => lines.push(line) },
    });
    recordOperationHits(app);
    await app.ready();
    const tenant = await app.services.tenants.create({ name: 'Quiet logs', plan: 'pro' });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'logs', role: 'owner' })).token;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
  });

  describe('createInvitation · POST /api/invitations/', () => {
    it('answers email_sent false when the SMTP server cannot be reached, and logs the failure without secrets', async () => {
      const created = await app.inject({
        method: 'POST',
        url: '/api/invitations/',
        headers: { authorization: `Bearer ${token}` },
        payload: { email: 'kim@example.com', role: 'member' },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().email_sent).toBe(false);
      const link = created.json().accept_url as string;
      const invitationToken = link.split('/invite/')[1];

      const page = await app.inject({ method: 'GET', url: `/invite/${invitationToken}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="accept-form"');
      const lookup = await app.inject({
        method: 'POST',
        url: '/api/public/invitations/lookup/',
        payload: { token: invitationToken },
      });
      expect(lookup.statusCode).toBe(200);

      const log = lines.join('\n');
      expect(log).toContain('sending an email failed');
      expect(log).toContain('/api/invitations/'); // requests are logged, only not the page that holds the token
      expect(log).not.toContain(invitationToken);
      expect(log).not.toContain(SMTP_PASSWORD);
    });
  });
});
