/** The database schema, one file per area under schema/; Drizzle and the queries import it from here. */
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
