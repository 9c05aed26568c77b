import { and, eq, lt, type SQL } from 'drizzle-orm';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import type { Database } from '../../db/index.js';
import { events } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { WebhookService } from '../webhooks/service.js';
import type { EventType } from '../webhooks/schemas.js';
import type { ListWindow } from '../../lib/list-window.js';
import { readList } from '../../db/keyset.js';

/** The tenant's event log (GET /api/events/); every recorded event also goes to subscribed webhooks. */
export class EventLog {
  private readonly database: Database;
  private readonly webhooks: WebhookService;

  constructor({ database, webhooks }: { database: Database; webhooks: WebhookService }) {
    this.database = database;
    this.webhooks = webhooks;
  }

  async record(
    tenantId: string,
    type: EventType,
    object: { type: string; id: string },
    data: Record<string, unknown>,
  ): Promise<void> {
    await this.database.db
      .insert(events)
      .values({ id: newId('event'), tenantId, type, objectType: object.type, objectId: object.id, data });
    await this.webhooks.publish(tenantId, type, { object_type: object.type, object_id: object.id, ...data });
  }

  async list(tenantId: string, filters: { objectId?: string; type?: string }, window: ListWindow) {
    const where: SQL | undefined = and(
      eq(events.tenantId, tenantId),
      filters.objectId ? eq(events.objectId, filters.objectId) : undefined,
      filters.type ? eq(events.type, filters.type) : undefined,
    );
    const { rows, total } = await readList(
      this.database.db,
      window,
      { table: events, scope: where, sortKey: events.createdAt, id: events.id, descending: true },
      (page) =>
        this.database.db
          .select()
          .from(events)
          .where(page.where)
          .orderBy(...page.orderBy)
          .limit(page.limit)
          .offset(page.offset),
    );
    return {
      total,
      results: rows.map((row) => ({
        id: row.id,
        type: row.type,
        object_type: row.objectType,
        object_id: row.objectId,
        data: row.data,
        created_at: row.createdAt.toISOString(),
      })),
    };
  }

  /** Deletes events older than `before`, in batches (retention). */
  prune(before: Date, batches: BatchedDelete): Promise<number> {
    return deleteInBatches(this.database.db, events, lt(events.createdAt, before), events.createdAt, batches);
  }
}
