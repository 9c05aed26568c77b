/**
 * The database schema, one file per area under schema/; Drizzle and the queries import it from here.
 * Columns with a fixed set of values (`text(…, { enum })`) take the list from the module's schemas.ts that the API
 * documents it with, and JSON columns name their shape with `$type`: both are TypeScript types only, no migration.
 * Those schemas.ts files import typebox and other schemas, never src/db, so this import is no cycle.
 */
export * from './schema/accounts.js';
export * from './schema/hosting.js';
export * from './schema/monitoring.js';
export * from './schema/scans.js';
export * from './schema/meta.js';
export * from './schema/notifications.js';
export * from './schema/status.js';
export * from './schema/tagging-servers.js';
export * from './schema/outgoing-log.js';
export * from './schema/request-powerups.js';
export * from './schema/tracking-monitors.js';
