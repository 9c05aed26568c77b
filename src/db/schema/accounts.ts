import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ROLES } from '../../modules/members/schemas.js';
import { PLAN_IDS, TENANT_STATUSES } from '../../modules/tenants/schemas.js';
import { createdAt, updatedAt } from './columns.js';

export const plans = pgTable('plans', {
  id: text('id', { enum: PLAN_IDS }).primaryKey(),
  name: text('name').notNull(),
  features: jsonb('features').$type<Record<string, number | boolean>>().notNull(),
  createdAt: createdAt(),
});

export const tenants = pgTable(
  'tenants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    planId: text('plan_id', { enum: PLAN_IDS })
      .notNull()
      .references(() => plans.id),
    // biome-ignore lint/suspicious/noExplicitAny: Drizzle's documented form of a self-reference
    parentId: text('parent_id').references((): any => tenants.id),
    featureOverrides: jsonb('feature_overrides').$type<Record<string, number | boolean>>().notNull().default({}),
    status: text('status', { enum: TENANT_STATUSES }).notNull().default('active'),
    /** Owners require two-factor sign-in of every member. */
    requireTwoFactor: boolean('require_two_factor').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    /** Active client tenants, kept by a trigger (migration 0022): the plan limit is checked on this row alone. */
    clientCount: integer('client_count').notNull().default(0),
  },
  (t) => [
    index('tenants_parent_idx').on(t.parentId),
    // The client list, oldest first, with and without a status filter.
    index('tenants_parent_created_idx').on(t.parentId, t.createdAt, t.id),
    index('tenants_parent_status_created_idx').on(t.parentId, t.status, t.createdAt, t.id),
    check('tenants_status_check', sql`${t.status} in ('active', 'archived')`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** The TOTP secret (RFC 6238), sealed (src/lib/secrets.ts); null until enrolment is confirmed. */
    totpSecretSealed: text('totp_secret_sealed'),
    /** A secret shown for enrolment and not yet confirmed with a code. */
    totpPendingSealed: text('totp_pending_sealed'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    /** The last time step a code was accepted for: a code is never accepted twice. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** SHA-256 of each unused one-time recovery code. */
    recoveryCodeHashes: jsonb('recovery_code_hashes').$type<string[]>().notNull().default([]),
    /** Wrong two-factor codes at sign-in since `failedCodesSince`, from any IP and instance (capped per account). */
    failedCodes: integer('failed_codes').notNull().default(0),
    failedCodesSince: timestamp('failed_codes_since', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    role: text('role', { enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('memberships_user_tenant_idx').on(t.userId, t.tenantId),
    index('memberships_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    check('memberships_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

/** An invitation to join a tenant with a role; only the token's hash is stored, and it works once. */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    email: text('email').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: text('invited_by').references(() => users.id),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: text('accepted_by').references(() => users.id),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_idx').on(t.tokenHash),
    index('invitations_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    check('invitations_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    userAgent: text('user_agent'),
    ip: text('ip'),
    /** Opened with a second factor. */
    twoFactor: boolean('two_factor').notNull().default(false),
  },
  (t) => [uniqueIndex('sessions_token_hash_idx').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

/** One-time tokens that open the first-run set-up on a database that already has tenants (see UserService.setup). */
export const setupTokens = pgTable('setup_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    tokenStart: text('token_start').notNull(),
    tokenLast4: text('token_last4').notNull(),
    /** The role the key acts with (src/http/roles.ts). */
    role: text('role', { enum: ROLES }).notNull().default('admin'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_keys_token_hash_idx').on(t.tokenHash),
    index('api_keys_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    check('api_keys_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

/**
 * Calls of deprecated operations per API key, UTC day and operation (src/http/deprecations.ts), counted in memory
 * and added on flush; the dashboard warns about keys with calls in the last 30 days.
 */
export const deprecatedCalls = pgTable(
  'deprecated_calls',
  {
    apiKeyId: text('api_key_id').notNull(),
    day: text('day').notNull(),
    operationId: text('operation_id').notNull(),
    tenantId: text('tenant_id').notNull(),
    /** The deprecation's sunset date (YYYY-MM-DD) and changelog entry when the call was made. */
    sunset: text('sunset').notNull(),
    changelog: text('changelog').notNull(),
    calls: integer('calls').notNull(),
    lastCalledAt: timestamp('last_called_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'deprecated_calls_pkey', columns: [t.apiKeyId, t.day, t.operationId] }),
    index('deprecated_calls_day_idx').on(t.day),
  ],
);

export type TenantRow = typeof tenants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type UserRow = typeof users.$inferSelect;
