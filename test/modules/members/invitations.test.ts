import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { call, eventsOf, PASSWORD, person, signIn } from '../../helpers/people.js';
import { startSmtpServer } from '../../helpers/smtp.js';

const rowsOf = (result: unknown) => (result as { rows: Array<Record<string, unknown>> }).rows;
const tokenOf = (acceptUrl: string) => acceptUrl.split('/invite/')[1];

describe.each(backends)('invitations on %s', (backend) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let counter = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(backend, {
      mail: { smtpUrl: smtp.url, from: 'Tagport <no-reply@tagport.test>' },
      publicBaseUrl: 'https://tagport.example',
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const newEmail = () => `invitee${++counter}-${backend}@example.com`;

  async function invite(owner: Awaited<ReturnType<typeof person>>, email = newEmail(), role = 'member') {
    const response = await call(t, owner, 'POST', '/api/invitations/', { email, role });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    await smtp.next(); // every invitation sends one email; take it so the next test reads its own
    return { ...body, token: tokenOf(body.accept_url) as string, email };
  }

  const accept = (payload: object) => t.inject({ method: 'POST', url: '/api/public/invitations/accept/', payload });

  describe('createInvitation · POST /api/invitations/', () => {
    it('emails the link (subject, text and HTML parts) and answers it once; only its hash is stored', async () => {
      const owner = await person(t);
      const email = newEmail();
      const response = await call(t, owner, 'POST', '/api/invitations/', { email: email.toUpperCase(), role: 'admin' });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created).toMatchObject({ email, role: 'admin', status: 'pending', email_sent: true, accepted_at: null });
      expect(created.id).toMatch(/^inv_/);
      expect(created.accept_url).toMatch(/^https:\/\/tagport\.example\/invite\/tgi_[A-Za-z0-9_-]{43}$/);
      const days = (Date.parse(created.expires_at) - Date.parse(created.created_at)) / 86_400_000;
      expect(days).toBeCloseTo(7, 3);

      const mail = await smtp.next();
      expect(mail.to).toEqual([email]);
      expect(mail.from).toBe('no-reply@tagport.test');
      expect(mail.subject).toMatch(/invited you to Team \d+ on Tagport/);
      expect(mail.text).toContain(created.accept_url);
      expect(mail.text).toContain('as an admin');
      expect(mail.html).toContain(`href="${created.accept_url}"`);
      expect(mail.html).toContain('Accept the invitation');

      const stored = rowsOf(await t.database.db.execute(sql`select * from invitations where id = ${created.id}`));
      expect(JSON.stringify(stored)).not.toContain(tokenOf(created.accept_url));
      expect(stored[0].token_hash).toMatch(/^[0-9a-f]{64}$/);

      const listed = (await call(t, owner, 'GET', '/api/invitations/')).json();
      expect(listed.results).toHaveLength(1);
      expect(listed.results[0]).not.toHaveProperty('accept_url');
      const [event] = await eventsOf(t, owner, 'member.invited');
      expect(event).toMatchObject({ object_id: created.id, data: { email, role: 'admin' } });
      expect(JSON.stringify(event)).not.toContain('tgi_');
    });

    it('escapes names in the HTML part', async () => {
      const tenant = await t.tenants.create({ name: '<b>Acme & Co</b>', plan: 'business' });
      const owner = await person(t, 'owner', tenant.id);
      await call(t, owner, 'POST', '/api/invitations/', { email: newEmail(), role: 'member' });
      const mail = await smtp.next();
      expect(mail.html).toContain('&lt;b&gt;Acme &amp; Co&lt;/b&gt;');
      expect(mail.html).not.toContain('<b>Acme');
      expect(mail.text).toContain('<b>Acme & Co</b>');
    });

    it('lets only owners invite owners, refuses members, and refuses someone already in the tenant', async () => {
      const owner = await person(t);
      const admin = await person(t, 'admin', owner.tenantId);
      const denied = await call(t, admin, 'POST', '/api/invitations/', { email: newEmail(), role: 'owner' });
      expect(denied.statusCode).toBe(403);
      expect(denied.json().error).toMatchObject({ code: 'insufficient_role', details: { required_role: 'owner' } });
      const member = await person(t, 'member', owner.tenantId);
      const byMember = await call(t, member, 'POST', '/api/invitations/', { email: newEmail(), role: 'member' });
      expect(byMember.json().error.code).toBe('insufficient_role');
      const again = await call(t, owner, 'POST', '/api/invitations/', { email: admin.email, role: 'member' });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({ code: 'already_member', param: 'email' });
      const invitedByAdmin = await call(t, admin, 'POST', '/api/invitations/', { email: newEmail(), role: 'admin' });
      expect(invitedByAdmin.statusCode, invitedByAdmin.body).toBe(201);
      expect(invitedByAdmin.json().invited_by).toMatch(/^Person /);
      await smtp.next();
    });

    it('invites to the client tenant an agency acts for with Tagport-Tenant', async () => {
      const agency = await t.tenantWithKey('agency');
      const client = await t.inject({
        method: 'POST',
        url: '/api/tenants/',
        token: agency.token,
        payload: { name: 'Client Co' },
      });
      expect(client.statusCode, client.body).toBe(201);
      const headers = { 'tagport-tenant': client.json().id };
      const created = await t.inject({
        method: 'POST',
        url: '/api/invitations/',
        token: agency.token,
        headers,
        payload: { email: newEmail(), role: 'member' },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect((await smtp.next()).subject).toContain('Client Co');
      const inClient = await t.inject({ method: 'GET', url: '/api/invitations/', token: agency.token, headers });
      expect(inClient.json().results.map((row: { id: string }) => row.id)).toEqual([created.json().id]);
      const inAgency = await t.inject({ method: 'GET', url: '/api/invitations/', token: agency.token });
      expect(inAgency.json().results).toEqual([]);
      const accepted = await accept({ token: tokenOf(created.json().accept_url), name: 'Cleo', password: PASSWORD });
      expect(accepted.json().tenant_id).toBe(client.json().id);
    });

    it('replaces an earlier pending invitation to the same address', async () => {
      const owner = await person(t);
      const email = newEmail();
      const first = await invite(owner, email);
      const second = await invite(owner, email, 'admin');
      const gone = await accept({ token: first.token, name: 'Sam', password: PASSWORD });
      expect(gone.json().error.code).toBe('invitation_revoked');
      expect((await accept({ token: second.token, name: 'Sam', password: PASSWORD })).statusCode).toBe(201);
    });

    it('answers email_sent false and still the link when SMTP is not configured', async () => {
      const quiet = await startTestApp(backend, { publicBaseUrl: 'https://tagport.example' });
      try {
        const tenant = await quiet.tenants.create({ name: 'Quiet', plan: 'pro' });
        await quiet.users.createUser({
          email: 'q@example.com',
          name: 'Q',
          password: PASSWORD,
          tenantId: tenant.id,
          role: 'owner',
        });
        const owner = await signIn(quiet, 'q@example.com');
        const response = await call(quiet, owner, 'POST', '/api/invitations/', { email: newEmail(), role: 'member' });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json()).toMatchObject({ email_sent: false });
        expect(response.json().accept_url).toMatch(/^https:\/\/tagport\.example\/invite\/tgi_/);
      } finally {
        await quiet.close();
      }
    });
  });

  describe('lookupInvitation · POST /api/public/invitations/lookup/', () => {
    it('shows what the link offers without credentials, and 404 for an unknown token', async () => {
      const owner = await person(t);
      const invitation = await invite(owner);
      const response = await t.inject({
        method: 'POST',
        url: '/api/public/invitations/lookup/',
        payload: { token: invitation.token },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ email: invitation.email, role: 'member', account_exists: false });
      expect(response.json().tenant_name).toMatch(/^Team /);
      const unknown = await t.inject({
        method: 'POST',
        url: '/api/public/invitations/lookup/',
        payload: { token: `tgi_${'x'.repeat(43)}` },
      });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe('acceptInvitation · POST /api/public/invitations/accept/', () => {
    it('makes an account with the invited role, works once, and the new member can sign in', async () => {
      const owner = await person(t);
      const invitation = await invite(owner, newEmail(), 'admin');
      const noName = await accept({ token: invitation.token, password: PASSWORD });
      expect(noName.json().error).toMatchObject({ code: 'name_required', param: 'name' });
      const weak = await accept({ token: invitation.token, name: 'Sam', password: 'short' });
      expect(weak.json().error).toMatchObject({ code: 'weak_password', param: 'password' });

      const accepted = await accept({ token: invitation.token, name: 'Sam New', password: PASSWORD });
      expect(accepted.statusCode, accepted.body).toBe(201);
      expect(accepted.json()).toMatchObject({
        tenant_id: owner.tenantId,
        email: invitation.email,
        role: 'admin',
        account_created: true,
      });
      const again = await accept({ token: invitation.token, name: 'Sam New', password: PASSWORD });
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('invitation_used');

      const sam = await signIn(t, invitation.email);
      const me = (await call(t, sam, 'GET', '/api/auth/session')).json();
      expect(me).toMatchObject({ tenant_id: owner.tenantId, role: 'admin', user: { name: 'Sam New' } });
      const members = (await call(t, owner, 'GET', '/api/members/')).json().results;
      expect(members.map((member: { email: string }) => member.email)).toContain(invitation.email);
      const listed = (await call(t, owner, 'GET', '/api/invitations/')).json().results;
      expect(listed[0]).toMatchObject({ id: invitation.id, status: 'accepted' });
      const [joined] = await eventsOf(t, owner, 'member.joined');
      expect(joined.data).toMatchObject({ email: invitation.email, role: 'admin', invitation_id: invitation.id });
    });

    it('asks an existing account for its password and adds the membership', async () => {
      const owner = await person(t);
      const elsewhere = await person(t); // has a tenant of their own
      const invitation = await invite(owner, elsewhere.email);
      const preview = await t.inject({
        method: 'POST',
        url: '/api/public/invitations/lookup/',
        payload: { token: invitation.token },
      });
      expect(preview.json().account_exists).toBe(true);
      const wrong = await accept({ token: invitation.token, password: 'not the password at all' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().error).toMatchObject({ code: 'incorrect_password', param: 'password' });
      const accepted = await accept({ token: invitation.token, password: PASSWORD });
      expect(accepted.statusCode, accepted.body).toBe(201);
      expect(accepted.json()).toMatchObject({ user_id: elsewhere.userId, account_created: false, role: 'member' });
      const session = await signIn(t, elsewhere.email, PASSWORD, owner.tenantId);
      expect((await call(t, session, 'GET', '/api/auth/session')).json().memberships).toHaveLength(2);
    });

    it('refuses an expired link', async () => {
      const owner = await person(t);
      const invitation = await invite(owner);
      await t.database.db.execute(
        sql`update invitations set expires_at = now() - interval '1 minute' where id = ${invitation.id}`,
      );
      const response = await accept({ token: invitation.token, name: 'Late', password: PASSWORD });
      expect(response.statusCode).toBe(409);
      expect(response.json().error.code).toBe('invitation_expired');
      const listed = (await call(t, owner, 'GET', '/api/invitations/')).json().results;
      expect(listed[0].status).toBe('expired');
    });
  });

  describe('revokeInvitation · DELETE /api/invitations/{id}/', () => {
    it('stops the link at once, once; another tenant gets 404', async () => {
      const owner = await person(t);
      const invitation = await invite(owner);
      const stranger = await person(t);
      const foreign = await call(t, stranger, 'DELETE', `/api/invitations/${invitation.id}/`);
      expect(foreign.statusCode).toBe(404);

      const revoked = await call(t, owner, 'DELETE', `/api/invitations/${invitation.id}/`);
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.json()).toMatchObject({ status: 'revoked' });
      const response = await accept({ token: invitation.token, name: 'Too late', password: PASSWORD });
      expect(response.json().error.code).toBe('invitation_revoked');
      const twice = await call(t, owner, 'DELETE', `/api/invitations/${invitation.id}/`);
      expect(twice.json().error.code).toBe('invitation_not_pending');
      const [event] = await eventsOf(t, owner, 'member.invitation_revoked');
      expect(event.object_id).toBe(invitation.id);
    });
  });

  describe('listInvitations · GET /api/invitations/', () => {
    it("shows only the tenant's own invitations", async () => {
      const owner = await person(t);
      const stranger = await person(t);
      const mine = await invite(owner);
      await invite(stranger);
      const listed = (await call(t, owner, 'GET', '/api/invitations/')).json();
      expect(listed.results.map((invitation: { id: string }) => invitation.id)).toEqual([mine.id]);
    });
  });
});
