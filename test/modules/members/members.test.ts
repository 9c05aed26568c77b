import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { call, eventsOf, person } from '../../helpers/people.js';

describe.each(backends)('members on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  async function membershipOf(session: Awaited<ReturnType<typeof person>>, email: string) {
    const members = (await call(t, session, 'GET', '/api/members/')).json().results as Array<{
      id: string;
      email: string;
      role: string;
    }>;
    return members.find((member) => member.email === email)!;
  }

  describe('listMembers · GET /api/members/', () => {
    it("lists the tenant's people with their roles, and nobody of another tenant", async () => {
      const owner = await person(t);
      const member = await person(t, 'member', owner.tenantId);
      const stranger = await person(t);
      const response = await call(t, member, 'GET', '/api/members/');
      expect(response.statusCode, response.body).toBe(200);
      const { results, count } = response.json();
      expect(count).toBe(2);
      expect(results.map((row: { email: string; role: string }) => [row.email, row.role])).toEqual([
        [owner.email, 'owner'],
        [member.email, 'member'],
      ]);
      expect(results[0]).toMatchObject({ user_id: owner.userId, two_factor: false });
      expect(results[0].id).toMatch(/^mem_/);
      expect(JSON.stringify(results)).not.toContain(stranger.email);
      const keyed = await t.tenantWithKey();
      const viaKey = await t.inject({ method: 'GET', url: '/api/members/', token: keyed.token });
      expect(viaKey.json().results).toEqual([]);
    });
  });

  describe('updateMember · PATCH /api/members/{id}/', () => {
    it('changes a role at once, with an audit event; admins cannot touch the owner role', async () => {
      const owner = await person(t);
      const admin = await person(t, 'admin', owner.tenantId);
      const member = await person(t, 'member', owner.tenantId);
      const target = await membershipOf(owner, member.email);
      // the member's session is cached with the old role; the change must reach it at once
      expect((await call(t, member, 'GET', '/api/auth/session')).json().role).toBe('member');

      const promoted = await call(t, admin, 'PATCH', `/api/members/${target.id}/`, { role: 'admin' });
      expect(promoted.statusCode, promoted.body).toBe(200);
      expect(promoted.json()).toMatchObject({ id: target.id, role: 'admin' });
      expect((await call(t, member, 'GET', '/api/auth/session')).json().role).toBe('admin');
      const [event] = await eventsOf(t, owner, 'member.role_changed');
      expect(event).toMatchObject({
        object_id: target.id,
        data: { email: member.email, role: 'admin', previous_role: 'member', actor_user_id: admin.userId },
      });

      const toOwner = await call(t, admin, 'PATCH', `/api/members/${target.id}/`, { role: 'owner' });
      expect(toOwner.json().error).toMatchObject({ code: 'insufficient_role', details: { required_role: 'owner' } });
      const ownerRow = await membershipOf(owner, owner.email);
      const demoteOwner = await call(t, admin, 'PATCH', `/api/members/${ownerRow.id}/`, { role: 'member' });
      expect(demoteOwner.json().error.code).toBe('insufficient_role');
      const byMember = await call(t, member, 'PATCH', `/api/members/${target.id}/`, { role: 'member' });
      expect(byMember.statusCode).toBe(200); // now an admin
    });

    it('keeps the last owner: demoting them is refused until another owner exists', async () => {
      const owner = await person(t);
      const other = await person(t, 'member', owner.tenantId);
      const ownerRow = await membershipOf(owner, owner.email);
      const refused = await call(t, owner, 'PATCH', `/api/members/${ownerRow.id}/`, { role: 'admin' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.code).toBe('last_owner');
      const otherRow = await membershipOf(owner, other.email);
      expect((await call(t, owner, 'PATCH', `/api/members/${otherRow.id}/`, { role: 'owner' })).statusCode).toBe(200);
      const demoted = await call(t, owner, 'PATCH', `/api/members/${ownerRow.id}/`, { role: 'admin' });
      expect(demoted.statusCode, demoted.body).toBe(200);
    });

    it("answers 404 for another tenant's member and changes nothing", async () => {
      const owner = await person(t);
      const member = await person(t, 'member', owner.tenantId);
      const stranger = await person(t);
      const target = await membershipOf(owner, member.email);
      const response = await call(t, stranger, 'PATCH', `/api/members/${target.id}/`, { role: 'admin' });
      expect(response.statusCode).toBe(404);
      expect((await membershipOf(owner, member.email)).role).toBe('member');
    });
  });

  describe('removeMember · DELETE /api/members/{id}/', () => {
    it('removes the person, ends their sessions in the tenant at once, and records it', async () => {
      const owner = await person(t);
      const member = await person(t, 'member', owner.tenantId);
      expect((await call(t, member, 'GET', '/api/containers/')).statusCode).toBe(200); // cached session
      const target = await membershipOf(owner, member.email);
      const removed = await call(t, owner, 'DELETE', `/api/members/${target.id}/`);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json()).toMatchObject({ id: target.id, email: member.email });
      const after = await call(t, member, 'GET', '/api/containers/');
      expect(after.statusCode).toBe(401);
      expect((await call(t, owner, 'GET', '/api/members/')).json().count).toBe(1);
      const [event] = await eventsOf(t, owner, 'member.removed');
      expect(event).toMatchObject({ object_id: target.id, data: { email: member.email, role: 'member' } });
      const again = await call(t, owner, 'DELETE', `/api/members/${target.id}/`);
      expect(again.statusCode).toBe(404);
    });

    it('never removes the last owner; only owners remove owners; another tenant gets 404', async () => {
      const owner = await person(t);
      const admin = await person(t, 'admin', owner.tenantId);
      const ownerRow = await membershipOf(owner, owner.email);
      const last = await call(t, owner, 'DELETE', `/api/members/${ownerRow.id}/`);
      expect(last.statusCode).toBe(409);
      expect(last.json().error.code).toBe('last_owner');
      const byAdmin = await call(t, admin, 'DELETE', `/api/members/${ownerRow.id}/`);
      expect(byAdmin.json().error.code).toBe('insufficient_role');
      const stranger = await person(t);
      const adminRow = await membershipOf(owner, admin.email);
      expect((await call(t, stranger, 'DELETE', `/api/members/${adminRow.id}/`)).statusCode).toBe(404);
      expect((await call(t, admin, 'GET', '/api/members/')).statusCode).toBe(200);
    });
  });
});
