import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { CONTAINER_STATUSES, REGIONS } from '../../modules/containers/schemas.js';
import { RUNTIMES, type StoredContainerSettings } from '../../modules/containers/settings.js';
import { CERTIFICATE_STATUSES, RENEWAL_SOURCES } from '../../modules/certificates/schemas.js';
import { DOMAIN_STATUSES } from '../../modules/domains/schemas.js';
import { createdAt, updatedAt } from './columns.js';
import { tenants } from './accounts.js';

export const containers = pgTable(
  'containers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    region: text('region', { enum: REGIONS }).notNull(),
    status: text('status', { enum: CONTAINER_STATUSES }).notNull(),
    statusReason: text('status_reason'),
    /** A transition queued behind the current one (restart = stop, then start). */
    pendingAction: text('pending_action'),
    /** The GTM container config string: sealed (`v1.…`, purpose `container-config:<id>`), or in clear if older. */
    config: text('config').notNull(),
    /** The GTM container id of `config`; null on rows written before it was kept (read from `config` then). */
    gtmContainerId: text('gtm_container_id'),
    upstreamUrl: text('upstream_url'),
    /** `builtin` (the gateway serves and forwards itself), `upstream` (proxy to upstream_url) or `sgtm` (Google's tagging server, run by Tagport). */
    runtime: text('runtime', { enum: RUNTIMES }).notNull().default('builtin'),
    /** Loader path, GA4 ids and power-up switches (modules/containers/settings.ts); defaults filled on read. */
    settings: jsonb('settings').$type<StoredContainerSettings>().notNull().default({}),
    defaultHostname: text('default_hostname').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('containers_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    uniqueIndex('containers_default_hostname_idx').on(t.defaultHostname),
    // The few failed containers, for the agencies' overview of clients that need attention.
    index('containers_failed_idx').on(t.tenantId).where(sql`status = 'failed'`),
  ],
);

export const domains = pgTable(
  'domains',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    hostname: text('hostname').notNull(),
    status: text('status', { enum: DOMAIN_STATUSES }).notNull(),
    failureReason: text('failure_reason'),
    verificationToken: text('verification_token').notNull(),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    // Any number of accounts may claim a hostname (one claim each); only one claim can be active.
    uniqueIndex('domains_hostname_tenant_live_idx').on(t.hostname, t.tenantId).where(sql`deleted_at is null`),
    uniqueIndex('domains_hostname_active_idx').on(t.hostname).where(sql`deleted_at is null and status = 'active'`),
    index('domains_tenant_idx').on(t.tenantId, t.createdAt, t.id),
  ],
);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    objectType: text('object_type').notNull(),
    objectId: text('object_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('events_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    index('events_object_idx').on(t.objectId, t.createdAt),
    // The list's filters (object, type) within a tenant, newest first; retention by age.
    index('events_tenant_object_idx').on(t.tenantId, t.objectId, t.createdAt, t.id),
    index('events_tenant_type_idx').on(t.tenantId, t.type, t.createdAt, t.id),
    index('events_created_idx').on(t.createdAt),
  ],
);
export type EventRow = typeof events.$inferSelect;

export const containerUsage = pgTable(
  'container_usage',
  {
    containerId: text('container_id').notNull(),
    day: text('day').notNull(),
    hostname: text('hostname').notNull(),
    statusClass: text('status_class').notNull(),
    requests: integer('requests').notNull(),
    /** Body bytes the clients sent and the upstream answered (headers not counted). */
    requestBytes: bigint('request_bytes', { mode: 'number' }).notNull().default(0),
    responseBytes: bigint('response_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('container_usage_key').on(t.containerId, t.day, t.hostname, t.statusClass),
    index('container_usage_day_idx').on(t.day),
  ],
);

/** What the built-in runtime did per container and UTC day, counted by the gateway and added on flush. */
export const containerRuntimeUsage = pgTable(
  'container_runtime_usage',
  {
    containerId: text('container_id').notNull(),
    day: text('day').notNull(),
    hitsReceived: integer('hits_received').notNull().default(0),
    ga4Forwarded: integer('ga4_forwarded').notNull().default(0),
    metaForwarded: integer('meta_forwarded').notNull().default(0),
    forwardsFailed: integer('forwards_failed').notNull().default(0),
    hitsRefused: integer('hits_refused').notNull().default(0),
    botsDropped: integer('bots_dropped').notNull().default(0),
    cookiesRestored: integer('cookies_restored').notNull().default(0),
  },
  (t) => [uniqueIndex('container_runtime_usage_key').on(t.containerId, t.day)],
);

/** Forwarding losses already alerted per container and UTC day (src/modules/containers/forwarding-alerts.ts). */
export const containerForwardingAlerts = pgTable(
  'container_forwarding_alerts',
  {
    containerId: text('container_id').notNull(),
    day: text('day').notNull(),
    lossesAlerted: integer('losses_alerted').notNull(),
    alertedAt: timestamp('alerted_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.containerId, t.day] })],
);

export const containerRequestLogs = pgTable(
  'container_request_logs',
  {
    id: text('id').primaryKey(),
    containerId: text('container_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    hostname: text('hostname').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code').notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** The upstream origin that answered; null when the gateway answered itself (not running, no upstream, …). */
    upstream: text('upstream'),
    /** From sending the request upstream to the end of its answer; null when no upstream was asked. */
    upstreamMs: integer('upstream_ms'),
  },
  (t) => [
    index('container_request_logs_idx').on(t.containerId, t.at, t.id),
    index('container_request_logs_at_idx').on(t.at),
  ],
);

export type ContainerRow = typeof containers.$inferSelect;
export type ContainerRequestLogRow = typeof containerRequestLogs.$inferSelect;
/** One certificate per active custom domain; the private key sealed with SECRETS_KEY (src/lib/secrets.ts). */
export const domainCertificates = pgTable(
  'domain_certificates',
  {
    domainId: text('domain_id')
      .primaryKey()
      .references(() => domains.id),
    hostname: text('hostname').notNull(),
    status: text('status', { enum: CERTIFICATE_STATUSES }).notNull(),
    issuer: text('issuer'),
    notBefore: timestamp('not_before', { withTimezone: true }),
    notAfter: timestamp('not_after', { withTimezone: true }),
    certificatePem: text('certificate_pem'),
    privateKeySealed: text('private_key_sealed'),
    lastError: text('last_error'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** An instance working on the order holds it until then, so two workers never order the same certificate. */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** From then on the certificate is near expiry: renewals have been failing for a while (alerted, on the overview). */
    expiryWarningAt: timestamp('expiry_warning_at', { withTimezone: true }),
    /** When its near expiry was alerted; null until then, and again for each newly issued certificate. */
    expiryAlertedAt: timestamp('expiry_alerted_at', { withTimezone: true }),
    /** Where the renewal time (next_attempt_at while issued) came from: the CA's window (ARI, RFC 9773) or our own. */
    renewalSource: text('renewal_source', { enum: RENEWAL_SOURCES }),
    /** The page the CA gave with its window (ARI `explanationURL`), e.g. why it asks for an early renewal. */
    renewalExplanationUrl: text('renewal_explanation_url'),
    /** When to ask the CA for the certificate's renewal window again; null when the CA offers none. */
    renewalInfoCheckAt: timestamp('renewal_info_check_at', { withTimezone: true }),
    updatedAt: updatedAt(),
    createdAt: createdAt(),
  },
  (t) => [
    index('domain_certificates_due_idx').on(t.nextAttemptAt),
    index('domain_certificates_renewal_info_idx')
      .on(t.renewalInfoCheckAt)
      .where(sql`renewal_info_check_at is not null`),
  ],
);

/** HTTP-01 answers, shared so that whichever gateway instance the CA reaches can answer. */
export const acmeChallenges = pgTable('acme_challenges', {
  token: text('token').primaryKey(),
  keyAuthorization: text('key_authorization').notNull(),
  hostname: text('hostname').notNull(),
  createdAt: createdAt(),
});

export const acmeAccounts = pgTable('acme_accounts', {
  directoryUrl: text('directory_url').primaryKey(),
  accountKeySealed: text('account_key_sealed').notNull(),
  createdAt: createdAt(),
});

export type DomainRow = typeof domains.$inferSelect;
export type DomainCertificateRow = typeof domainCertificates.$inferSelect;
