import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  features: jsonb('features').$type<Record<string, number | boolean>>().notNull(),
  createdAt: createdAt(),
});

export const tenants = pgTable(
  'tenants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    planId: text('plan_id').notNull().references(() => plans.id),
    parentId: text('parent_id').references((): any => tenants.id),
    featureOverrides: jsonb('feature_overrides').$type<Record<string, number | boolean>>().notNull().default({}),
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
  },
  (t) => [
    index('tenants_parent_idx').on(t.parentId),
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
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id),
    tenantId: text('tenant_id').notNull().references(() => tenants.id),
    role: text('role').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('memberships_user_tenant_idx').on(t.userId, t.tenantId),
    check('memberships_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id').notNull().references(() => users.id),
    tenantId: text('tenant_id').notNull().references(() => tenants.id),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash_idx').on(t.tokenHash)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    tokenStart: text('token_start').notNull(),
    tokenLast4: text('token_last4').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_token_hash_idx').on(t.tokenHash), index('api_keys_tenant_idx').on(t.tenantId, t.createdAt)],
);

export type TenantRow = typeof tenants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export const scans = pgTable(
  'scans',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id),
    apiKeyId: text('api_key_id'),
    url: text('url').notNull(),
    language: text('language').notNull(),
    options: jsonb('options').$type<{ ai_summary: boolean; pagespeed: boolean }>().notNull(),
    status: text('status').notNull(),
    result: jsonb('result').$type<Record<string, unknown>>(),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('scans_tenant_created_idx').on(t.tenantId, t.createdAt),
    check('scans_status_check', sql`${t.status} in ('running', 'completed', 'failed')`),
  ],
);

export type ScanRow = typeof scans.$inferSelect;
