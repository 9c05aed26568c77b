import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { webhookDeliveries, WebhookRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { JobEngine } from '../../jobs/engine.js';
import { postJson, settleAttempt, type DeliveryAttemptSettings } from '../../lib/delivery-attempts.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import { WebhookErrors } from './errors.js';
import * as queries from './queries.js';
import type { DeliveryDto, EventType, WebhookDto } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

export const SIGNATURE_HEADER = 'tagport-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the scheme Stripe made familiar. */
export function signPayload(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** The headers of a signed delivery (webhooks and `webhook` notification channels): signature, event, delivery. */
export function signedHeaders(
  secret: string,
  body: string,
  delivery: { id: string; eventId: string; eventType: string },
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signPayload(secret, body),
    'tagport-event-id': delivery.eventId,
    'tagport-event-type': delivery.eventType,
    'tagport-delivery-id': delivery.id,
  };
}

export type WebhookSettings = DeliveryAttemptSettings;

/** One job per delivery; pg-boss retries it with exponential backoff, then moves it to the dead letter queue. */
export const WEBHOOK_DELIVERIES = 'webhook-delivery';
export const WEBHOOK_DEAD_LETTERS = 'webhook-delivery-dead';

/** The queue settings the delivery job runs with, from the webhook settings. */
export function deliveryQueueOptions(settings: WebhookSettings, deadLetter = WEBHOOK_DEAD_LETTERS) {
  const retryDelay = Math.round(settings.retryBaseMs / 1000);
  return {
    retryLimit: Math.max(0, settings.maxAttempts - 1),
    retryDelay,
    // pg-boss backs off from at least 1 s; a delay under a second means "retry at once".
    retryBackoff: retryDelay > 0,
    expireInSeconds: Math.ceil(settings.timeoutMs / 1000) + 30,
    deadLetter,
  };
}

/** An event of the tenant's event log, as every delivery of it carries it. */
export interface PublishedEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

/** A failed attempt that will be tried again: the job fails so that pg-boss schedules the retry. */
export class DeliveryAttemptFailed extends Error {}

function toDto(row: WebhookRow): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    event_types: row.eventTypes,
    created_at: row.createdAt.toISOString(),
  };
}

/** Webhook endpoints, the event publisher and the delivery attempts. */
export class WebhookService {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly jobs: Pick<JobEngine, 'insertIn'>;

  constructor(
    { database, outbound, jobs }: { database: Database; outbound: OutboundClient; jobs: Pick<JobEngine, 'insertIn'> },
    readonly settings: WebhookSettings,
  ) {
    this.database = database;
    this.outbound = outbound;
    this.jobs = jobs;
  }

  /** Adds a listener told about every event published from now on. */
  async create(
    tenantId: string,
    input: { url: string; event_types: EventType[] },
  ): Promise<WebhookDto & { secret: string }> {
    try {
      await this.outbound.checkUrl(input.url);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw WebhookErrors.urlRefused(error);
      throw error;
    }
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const row = await queries.insertWebhook(this.database.db, {
      id: newId('webhook'),
      tenantId,
      url: input.url,
      eventTypes: [...new Set(input.event_types)],
      secret,
    });
    return { ...toDto(row), secret };
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listWebhooks(this.database.db, tenantId, window);
    return { results: rows.map(toDto), total };
  }

  async get(tenantId: string, id: string): Promise<WebhookDto> {
    const row = await queries.findWebhook(this.database.db, tenantId, id);
    if (!row) throw WebhookErrors.notFound(id);
    return toDto(row);
  }

  async delete(tenantId: string, id: string): Promise<WebhookDto> {
    const row = await queries.deleteWebhook(this.database.db, tenantId, id);
    if (!row) throw WebhookErrors.notFound(id);
    return toDto(row);
  }

  async deliveries(tenantId: string, id: string, window: ListWindow) {
    await this.get(tenantId, id);
    const { rows, total } = await queries.listDeliveries(this.database.db, id, window);
    const results: DeliveryDto[] = rows.map((row) => ({
      id: row.id,
      event_id: row.eventId,
      event_type: row.eventType,
      status: row.status,
      attempts: row.attempts,
      last_status_code: row.lastStatusCode,
      last_error: row.lastError,
      next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
      created_at: row.createdAt.toISOString(),
      delivered_at: row.deliveredAt?.toISOString() ?? null,
      payload: row.payload,
    }));
    return { results, total };
  }

  /**
   * Records one delivery of the event per subscribed endpoint of the tenant and queues a job for each, in one
   * transaction: a delivery always has its job (a worker sends it), and a job always finds its delivery. The event
   * comes from the event log (`EventLog.record`), so a delivery carries its id and data.
   */
  async publish(tenantId: string, event: PublishedEvent): Promise<void> {
    const payload = {
      id: event.id,
      type: event.type,
      created_at: event.created_at,
      tenant_id: tenantId,
      data: event.data,
    };
    const endpoints = await queries.subscribedWebhooks(this.database.db, tenantId, event.type);
    const rows: Array<typeof webhookDeliveries.$inferInsert> = endpoints.map((endpoint) => ({
      id: newId('delivery'),
      webhookId: endpoint.id,
      tenantId,
      eventId: event.id,
      eventType: event.type,
      payload,
      status: 'pending',
    }));
    if (rows.length === 0) return;
    await this.database.db.transaction(async (tx) => {
      await queries.insertDeliveries(tx, rows);
      await this.jobs.insertIn(
        tx,
        WEBHOOK_DELIVERIES,
        rows.map((row) => ({ data: { deliveryId: row.id! } })),
      );
    });
  }

  /**
   * One attempt of a delivery (the job handler). A failure that has attempts left throws, and pg-boss retries the
   * job after its backoff; the last failure marks the delivery failed (listed as such by the API) and throws, so the
   * job lands in the dead letter queue. A delivery already settled is not sent again.
   */
  async deliver({ deliveryId }: { deliveryId: string }): Promise<void> {
    const delivery = await queries.findDelivery(this.database.db, deliveryId);
    if (delivery?.status !== 'pending') return;
    const endpoint = (await queries.webhookSecrets(this.database.db, [delivery.webhookId])).get(delivery.webhookId);
    if (!endpoint) return;
    const body = JSON.stringify(delivery.payload);
    const attempt = await postJson(this.outbound, endpoint.url, {
      body,
      headers: signedHeaders(endpoint.secret, body, delivery),
      timeoutMs: this.settings.timeoutMs,
    });
    await settleAttempt(delivery, attempt, {
      settings: this.settings,
      record: (id, outcome) => queries.recordAttempt(this.database.db, id, outcome),
      failure: (message) => new DeliveryAttemptFailed(`delivery ${message}`),
    });
  }
}
