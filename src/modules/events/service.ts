import { and, eq, lt, type SQL } from 'drizzle-orm';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import type { Database } from '../../db/index.js';
import { events, type EventRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { WebhookService } from '../webhooks/service.js';
import type { EventType } from '../webhooks/schemas.js';
import { EventErrors } from './errors.js';
import type { ListWindow } from '../../lib/list-window.js';
import { readList } from '../../db/keyset.js';

/** An event as the API lists it; `id`, `type`, `created_at` and `data` are exactly what its webhook deliveries carry. */
export interface EventDto {
  id: string;
  type: string;
  object_type: string;
  object_id: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** The data of a webhook delivery: the object the event is about, then what the publisher recorded. */
const dataOf = (row: EventRow) => ({ object_type: row.objectType, object_id: row.objectId, ...row.data });

function toDto(row: EventRow): EventDto {
  return {
    id: row.id,
    type: row.type,
    object_type: row.objectType,
    object_id: row.objectId,
    data: dataOf(row),
    created_at: row.createdAt.toISOString(),
  };
}

/** Told about every recorded event after its webhooks are queued (the notification channels listen). */
export type EventListener = (event: {
  tenantId: string;
  type: EventType;
  eventId: string;
  data: Record<string, unknown>;
}) => Promise<void>;

/**
 * The tenant's event log (GET /api/events/): every event is recorded here first, then published to the subscribed
 * webhooks with the same id and data, so a delivery can always be looked up by its `evt_…` id.
 */
export class EventLog {
  private readonly database: Database;
  private readonly webhooks: WebhookService;
  private readonly listeners: EventListener[] = [];

  constructor({ database, webhooks }: { database: Database; webhooks: WebhookService }) {
    this.database = database;
    this.webhooks = webhooks;
  }

  async record(
    tenantId: string,
    type: EventType,
    object: { type: string; id: string },
    data: Record<string, unknown>,
  ): Promise<EventDto> {
    const [row] = await this.database.db
      .insert(events)
      .values({ id: newId('event'), tenantId, type, objectType: object.type, objectId: object.id, data })
      .returning();
    const event = toDto(row);
    await this.webhooks.publish(tenantId, { id: event.id, type, created_at: event.created_at, data: event.data });
    for (const listener of this.listeners) await listener({ tenantId, type, eventId: event.id, data: event.data });
    return event;
  }

  onRecord(listener: EventListener): void {
    this.listeners.push(listener);
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
    return { total, results: rows.map(toDto) };
  }

  async get(tenantId: string, id: string): Promise<EventDto> {
    const [row] = await this.database.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.id, id)));
    if (!row) throw EventErrors.notFound(id);
    return toDto(row);
  }

  /** Deletes events older than `before`, in batches (retention). */
  prune(before: Date, batches: BatchedDelete): Promise<number> {
    return deleteInBatches(this.database.db, events, lt(events.createdAt, before), events.createdAt, batches);
  }
}
