import { expect } from 'vitest';
import type { Role } from '../../src/http/context.js';
import type { TestApp } from './app.js';

export const PASSWORD = 'a long enough password';

export type Session = { email: string; cookies: Record<string, string>; csrf: string };

let counter = 0;

/** Signs in; answers the cookies and CSRF token of the session (expects success). */
export async function signIn(t: TestApp, email: string, password = PASSWORD, tenantId?: string): Promise<Session> {
  const response = await t.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, ...(tenantId ? { tenant_id: tenantId } : {}) },
  });
  expect(response.statusCode, response.body).toBe(200);
  const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
  return { email, cookies, csrf: response.json().csrf_token as string };
}

/** A user with `role` in `tenantId` (a new tenant of their own when omitted), signed in. */
export async function person(t: TestApp, role: Role = 'owner', tenantId?: string) {
  const email = `person${++counter}-${Date.now()}@example.com`;
  const tenant = tenantId ?? (await t.tenants.create({ name: `Team ${counter}`, plan: 'business' })).id;
  const user = await t.users.createUser({
    email,
    name: `Person ${counter}`,
    password: PASSWORD,
    tenantId: tenant,
    role,
  });
  return { ...(await signIn(t, email, PASSWORD, tenant)), tenantId: tenant, userId: user.id };
}

export const call = (
  t: TestApp,
  session: Session,
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
  url: string,
  payload?: object,
) => t.inject({ method, url, cookies: session.cookies, headers: { 'x-csrf-token': session.csrf }, payload });

/** The audit events of a type in the tenant, newest first. */
export async function eventsOf(t: TestApp, session: Session, type: string) {
  const response = await call(t, session, 'GET', `/api/events/?type=${type}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().results as Array<{ type: string; object_id: string; data: Record<string, unknown> }>;
}
