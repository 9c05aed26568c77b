import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { SCAN_STAGES, SCAN_STATUSES } from '../../modules/tracking-checker/schemas.js';
import type { ScanTargetRefusedCode } from '../../scanner/errors.js';
import { LANGUAGES, type ScanResult } from '../../scanner/schema.js';
import { createdAt } from './columns.js';
import { tenants } from './accounts.js';

export const scans = pgTable(
  'scans',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    apiKeyId: text('api_key_id'),
    url: text('url').notNull(),
    language: text('language', { enum: LANGUAGES }).notNull(),
    options: jsonb('options')
      .$type<{ ai_summary: boolean; pagespeed: boolean; consent_check?: boolean; pages?: number }>()
      .notNull(),
    status: text('status', { enum: SCAN_STATUSES }).notNull(),
    /** While running: what the worker is doing (`scanning`, `storing`). */
    stage: text('stage', { enum: SCAN_STAGES }),
    result: jsonb('result').$type<ScanResult>(),
    /** Why it failed; `reason` says why a target was refused. */
    error: jsonb('error').$type<{ code: string; message: string; reason?: ScanTargetRefusedCode }>(),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('scans_tenant_created_idx').on(t.tenantId, t.createdAt),
    // The list (newest first) and the report (oldest first) in their exact order, ties broken by id.
    index('scans_tenant_created_id_idx').on(t.tenantId, t.createdAt, t.id),
    check('scans_status_check', sql`${t.status} in ('queued', 'running', 'completed', 'failed')`),
  ],
);

export type ScanRow = typeof scans.$inferSelect;
