import { setImmediate } from 'node:timers/promises';
import type { Database } from '../../db/index.js';
import type { containerRequestLogs, containerUsage } from '../../db/schema.js';
import * as queries from './queries.js';

/** Rows per insert or delete statement: each blocks a PGlite gateway for ~2–3 ms. */
const LOG_CHUNK = 250;

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

  /**
   * Adds the usage counts, then writes the logs in chunks, yielding to the event loop between them: on PGlite
   * every statement runs in this thread, so one big insert would stall every request in flight.
   */
  async record(usage: UsageCount[], logs: RequestLogEntry[]): Promise<void> {
    await queries.addUsage(this.database.db, usage);
    for (let start = 0; start < logs.length; start += LOG_CHUNK) {
      if (start > 0) await setImmediate();
      await queries.insertRequestLogs(this.database.db, logs.slice(start, start + LOG_CHUNK));
    }
  }

  /**
   * Keeps the newest `keep` sampled logs of each of these containers, deleting the older ones in chunks with a
   * yield between them (a flush of 1000 new logs deletes 1000: as one statement, a long stall on PGlite).
   */
  async trimLogs(containerIds: Iterable<string>, keep: number): Promise<void> {
    for (const containerId of containerIds) {
      while ((await queries.trimRequestLogs(this.database.db, containerId, keep, LOG_CHUNK)) === LOG_CHUNK)
        await setImmediate();
      await setImmediate();
    }
  }
}
