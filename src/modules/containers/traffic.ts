import type { Database } from '../../db/index.js';
import type { containerRequestLogs, containerUsage } from '../../db/schema.js';
import * as queries from './queries.js';

export type { GatewayRoute } from './queries.js';
export type UsageCount = typeof containerUsage.$inferInsert;
export type RequestLogEntry = typeof containerRequestLogs.$inferInsert;

/**
 * What the gateway (the data plane) reads and writes: the route of a hostname, and its metered usage and
 * sampled request logs. The gateway is given this service; it never reads another module's queries.
 */
export class ContainerTraffic {
  private readonly database: Database;

  constructor({ database }: { database: Database }) {
    this.database = database;
  }

  route(hostname: string): Promise<queries.GatewayRoute | null> {
    return queries.findRouteByHostname(this.database.db, hostname);
  }

  async record(usage: UsageCount[], logs: RequestLogEntry[]): Promise<void> {
    await queries.addUsage(this.database.db, usage);
    await queries.insertRequestLogs(this.database.db, logs);
  }

  /** Keeps the newest `keep` sampled logs per container. */
  trimLogs(keep: number): Promise<void> {
    return queries.trimRequestLogs(this.database.db, keep);
  }
}
