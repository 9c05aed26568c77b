import { bigserial, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { containers } from './hosting.js';

/** What the `process` driver should run for an `sgtm` container (src/modules/tagging-servers/). */
export const taggingServerDeployments = pgTable('tagging_server_deployments', {
  containerId: text('container_id')
    .primaryKey()
    .references(() => containers.id),
  /** CONTAINER_CONFIG, sealed with the secrets key (purpose `tagging-server-config:<container id>`). */
  sealedConfig: text('sealed_config').notNull(),
  previewServerUrl: text('preview_server_url').notNull(),
  version: text('version').notNull(),
  /** Tagging replicas to run; 0 when stopped. */
  replicas: integer('replicas').notNull(),
  /** Bumped by a restart: replicas of an older generation are replaced. */
  generation: integer('generation').notNull().default(1),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One replica (tagging or preview) of one generation as the supervising process last saw it: during a rollout the
 * new generation's `tagging-0` runs next to the old one until it is ready.
 */
export const taggingServerReplicas = pgTable(
  'tagging_server_replicas',
  {
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    /** `tagging-0`, `tagging-1`, …, `preview-0`. */
    name: text('name').notNull(),
    role: text('role').notNull(),
    /** The process supervising it (host and pid). */
    supervisor: text('supervisor').notNull(),
    /** `127.0.0.1:<port>` while it runs. */
    address: text('address'),
    /** `starting`, `ready`, `restarting`, `failed` or `stopped`. */
    state: text('state').notNull(),
    reason: text('reason'),
    restarts: integer('restarts').notNull().default(0),
    generation: integer('generation').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.containerId, t.name, t.generation] })],
);

/** What the replicas printed, the newest lines kept per container. */
export const taggingServerLogs = pgTable(
  'tagging_server_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    replica: text('replica').notNull(),
    stream: text('stream').notNull(),
    line: text('line').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('tagging_server_logs_container_idx').on(t.containerId, t.id)],
);
