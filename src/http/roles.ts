import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AuthContext, Role } from './context.js';
import { type ApiError, HttpCodes, unauthenticated } from './errors.js';

/**
 * The role policy: who may change what in a tenant. Written down here once; the route hooks below
 * enforce it and the OpenAPI document shows it per operation (`x-tagport-minimum-role`).
 *
 * - member: reads everything of the tenant, runs tracking-checker scans, requests reports (read-only
 *   exports of data a member can already read), acknowledges and resolves incidents (on-call work, not
 *   configuration), and signs out of their own session.
 * - admin: everything a member can do, plus creating, changing and deleting containers, domains,
 *   monitors, webhooks, notification channels (and their test sends) and API keys, creating client
 *   tenants and renaming tenants, inviting people and changing or removing members below the owner role.
 * - owner: everything; alone may archive a tenant, set plans or limit overrides (billing), and
 *   invite, grant, change or remove the owner role.
 *
 * A session acts with the user's role in the tenant; an API key with the role it was created with
 * (`admin` unless the creator chose otherwise). Public routes (sign-in, first-run set-up, the public
 * scan) take no credentials and are outside the policy. Every other request to a route under /api/
 * that changes something (POST, PUT, PATCH, DELETE) and is not listed here needs admin, so a new
 * route is never open to members by omission.
 */
export interface RoleRule {
  /** The lowest role allowed to call the operation. */
  minimum: Role;
  /** Body fields that raise the minimum to owner when present (plans and limits are billing). */
  ownerOnlyFields?: readonly string[];
}

const member: RoleRule = { minimum: 'member' };
const admin: RoleRule = { minimum: 'admin' };
const owner: RoleRule = { minimum: 'owner' };

export const ROLE_POLICY: Readonly<Record<string, RoleRule>> = {
  // Tenants
  createClientTenant: { minimum: 'admin', ownerOnlyFields: ['plan'] },
  updateTenant: { minimum: 'admin', ownerOnlyFields: ['plan', 'feature_overrides', 'require_two_factor'] },
  archiveTenant: owner,
  // Members: only owners touch the owner role (checked in MemberService / InvitationService)
  createInvitation: admin,
  revokeInvitation: admin,
  updateMember: admin,
  removeMember: admin,
  // API keys: never above the caller's own role either (see ApiKeyService)
  createApiKey: admin,
  revokeApiKey: admin,
  // Web sessions
  logout: member,
  // Each person's own second factor and sessions
  startTwoFactorEnrollment: member,
  confirmTwoFactorEnrollment: member,
  disableTwoFactor: member,
  revokeSession: member,
  // Tracking checker
  scanPage: member,
  // Containers
  createContainer: admin,
  updateContainer: admin,
  deleteContainer: admin,
  startContainer: admin,
  stopContainer: admin,
  restartContainer: admin,
  // Domains: verifying writes the domain's state and can put a hostname live; the periodic recheck covers members
  createDomain: admin,
  deleteDomain: admin,
  verifyDomain: admin,
  // Meta pixels: the access token is a credential of the tenant's Meta business account
  createMetaPixel: admin,
  updateMetaPixel: admin,
  deleteMetaPixel: admin,
  // Monitoring
  createMonitor: admin,
  updateMonitor: admin,
  deleteMonitor: admin,
  pauseMonitor: admin,
  resumeMonitor: admin,
  acknowledgeIncident: member,
  resolveIncident: member,
  // Tracking monitors: a run now is one more scan of the tenant's own pages; accepting a baseline decides what is right
  createTrackingMonitor: admin,
  updateTrackingMonitor: admin,
  deleteTrackingMonitor: admin,
  pauseTrackingMonitor: admin,
  resumeTrackingMonitor: admin,
  runTrackingMonitor: member,
  acceptTrackingBaseline: admin,
  // Webhooks
  createWebhook: admin,
  deleteWebhook: admin,
  // Notification channels
  createNotificationChannel: admin,
  updateNotificationChannel: admin,
  deleteNotificationChannel: admin,
  testNotificationChannel: admin,
  // Reports
  createReport: member,
  // Status page: platform operators only (an operator tenant, checked by StatusIncidents.assertOperator)
  createStatusIncident: admin,
  addStatusIncidentUpdate: admin,
  createMaintenanceWindow: admin,
  cancelMaintenanceWindow: admin,
};

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };
const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function hasRole(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

export function insufficientRole(auth: AuthContext, minimum: Role, what = 'This operation'): ApiError {
  const credential = auth.kind === 'api_key' ? 'API key' : 'session';
  return HttpCodes.insufficientRole.error(
    `${what} needs the ${minimum} role or higher; this ${credential} has the ${auth.role} role.`,
    { details: { required_role: minimum, role: auth.role } },
  );
}

/** Refuses with 403 insufficient_role unless the caller has at least `minimum`. */
export function requireRole(auth: AuthContext, minimum: Role, what?: string): void {
  if (!hasRole(auth.role, minimum)) throw insufficientRole(auth, minimum, what);
}

interface RouteShape {
  method: string | string[];
  url: string;
  schema?: { operationId?: string };
  config?: { public?: boolean };
}

/** The rule of a route, or null when the policy does not apply (outside /api/, or public). */
export function ruleFor(route: RouteShape): RoleRule | null {
  if (!route.url.startsWith('/api/') || route.config?.public) return null;
  const listed = route.schema?.operationId ? ROLE_POLICY[route.schema.operationId] : undefined;
  if (listed) return listed;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.some((method) => MUTATING_METHODS.has(method.toUpperCase())) ? admin : member;
}

type Done = (error?: Error) => void;

function authOf(request: FastifyRequest): AuthContext {
  // The request guard answers 401 first on every credentialed route; this only catches a route it skips.
  if (!request.authContext)
    throw unauthenticated(HttpCodes.missingCredentials, 'Send an API key in the header "Authorization: Bearer tgp_…".');
  return request.authContext;
}

/** Runs right after authentication (onRequest), before the body is read or validated. */
function minimumRoleHook(minimum: Role) {
  return function checkMinimumRole(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
    try {
      requireRole(authOf(request), minimum);
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}

/** Runs on the parsed body before validation: changing plans or limits is the owner's. */
function ownerOnlyFieldsHook(fields: readonly string[]) {
  return function checkOwnerOnlyFields(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
    const body = request.body;
    const named = body !== null && typeof body === 'object' ? fields.find((field) => field in body) : undefined;
    try {
      if (named) requireRole(authOf(request), 'owner', `Setting ${named}`);
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}

function appendHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
}

/**
 * Attaches the role checks to each route as it is registered (an onRoute hook, so it must be registered
 * before the routes). Only routes that need more than member get a hook: reads pay nothing.
 */
export function registerRolePolicy(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const rule = ruleFor(route);
    if (!rule) return;
    if (rule.minimum !== 'member')
      route.onRequest = appendHook(route.onRequest, minimumRoleHook(rule.minimum)) as RouteOptions['onRequest'];
    if (rule.ownerOnlyFields)
      route.preValidation = appendHook(
        route.preValidation,
        ownerOnlyFieldsHook(rule.ownerOnlyFields),
      ) as RouteOptions['preValidation'];
  });
}
