import type { ListWindow } from '../../lib/list-window.js';
import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { NotificationChannelRow, NotificationDeliveryRow, notificationDeliveries } from '../../db/schema.js';
import type { JobEngine } from '../../jobs/engine.js';
import { newId } from '../../lib/ids.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { EventType } from '../webhooks/schemas.js';
import { NotificationErrors } from './errors.js';
import { notificationOf, testMessage, type NotificationMessage } from './messages.js';
import * as queries from './queries.js';
import {
  NOTIFICATION_EVENT_TYPES,
  type ChannelDto,
  type ChannelType,
  type CreateChannelInput,
  type CreatedChannelDto,
  type DeliveryEventType,
  type NotificationDeliveryDto,
  type UpdateChannelInput,
} from './schemas.js';

/** One job per delivery; pg-boss retries it with backoff, then moves it to the dead letter queue. */
export const NOTIFICATION_DELIVERIES = 'notification-delivery';
export const NOTIFICATION_DEAD_LETTERS = 'notification-delivery-dead';

/** What a channel's sealed configuration holds. */
export interface ChannelConfig {
  target: string;
  /** `webhook` channels: the signing secret. */
  secret?: string;
}

/** What the monitors module needs of channels: check a choice, store it, read it back. */
export interface MonitorChannels {
  unknownIds(tenantId: string, ids: string[]): Promise<string[]>;
  attach(monitorId: string, ids: string[]): Promise<void>;
  ofMonitors(monitorIds: string[]): Promise<Map<string, string[]>>;
}

export interface NotificationSettings {
  /** Where the dashboard is served: the links in notifications point there. */
  dashboardUrl: string;
}

// A pragmatic check: one @, no spaces, a dot in the domain. The mail server has the last word.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const sealPurpose = (channelId: string) => `notification-channel:${channelId}`;

/** A URL with its secret part hidden: the origin and the last four characters. */
export function maskUrl(raw: string): string {
  const url = new URL(raw);
  const rest = `${url.pathname}${url.search}`;
  return rest.length <= 1 ? url.origin : `${url.origin}/…${rest.slice(-4)}`;
}

function toDto(row: NotificationChannelRow): ChannelDto {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    target: row.targetHint,
    event_types: row.eventTypes,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function deliveryDto(row: NotificationDeliveryRow): NotificationDeliveryDto {
  return {
    id: row.id,
    channel_id: row.channelId,
    event_id: row.eventId,
    event_type: row.eventType,
    title: String(row.message.title ?? ''),
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    next_attempt_at: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
  };
}

/** A tenant's notification channels, which events reach them, and their deliveries. */
export class NotificationService implements MonitorChannels {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly box: SecretBox;
  private readonly jobs: Pick<JobEngine, 'sendMany'>;

  constructor(
    {
      database,
      outbound,
      box,
      jobs,
    }: { database: Database; outbound: OutboundClient; box: SecretBox; jobs: Pick<JobEngine, 'sendMany'> },
    private readonly settings: NotificationSettings,
  ) {
    this.database = database;
    this.outbound = outbound;
    this.box = box;
    this.jobs = jobs;
  }

  private get db() {
    return this.database.db;
  }

  /** Checks a target for its type; returns what the API shows of it. */
  private async checkTarget(type: ChannelType, target: string): Promise<string> {
    const trimmed = target.trim();
    if (type === 'email') {
      if (!EMAIL.test(trimmed)) throw NotificationErrors.invalidEmail(trimmed);
      return trimmed.toLowerCase();
    }
    try {
      await this.outbound.checkUrl(trimmed);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw NotificationErrors.urlRefused(error);
      throw error;
    }
    return maskUrl(trimmed);
  }

  async create(tenantId: string, input: CreateChannelInput): Promise<CreatedChannelDto> {
    const targetHint = await this.checkTarget(input.type, input.target);
    const id = newId('notificationChannel');
    const secret = input.type === 'webhook' ? `whsec_${randomBytes(24).toString('base64url')}` : undefined;
    const target = input.type === 'email' ? targetHint : input.target.trim();
    const config: ChannelConfig = { target, ...(secret ? { secret } : {}) };
    const row = await queries.insertChannel(this.db, {
      id,
      tenantId,
      name: input.name.trim(),
      type: input.type,
      targetHint,
      configSealed: this.box.seal(JSON.stringify(config), sealPurpose(id)),
      eventTypes: [...new Set(input.event_types ?? NOTIFICATION_EVENT_TYPES)],
    });
    return { ...toDto(row), signing_secret: secret ?? null };
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listChannels(this.db, tenantId, window);
    return { results: rows.map(toDto), total };
  }

  private async find(tenantId: string, id: string): Promise<NotificationChannelRow> {
    const row = await queries.findChannel(this.db, tenantId, id);
    if (!row) throw NotificationErrors.channelNotFound(id);
    return row;
  }

  async get(tenantId: string, id: string): Promise<ChannelDto> {
    return toDto(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, input: UpdateChannelInput): Promise<ChannelDto> {
    const row = await this.find(tenantId, id);
    const values: Parameters<typeof queries.updateChannel>[3] = {};
    if (input.name !== undefined) values.name = input.name.trim();
    if (input.event_types !== undefined) values.eventTypes = [...new Set(input.event_types)];
    if (input.target !== undefined) {
      const type = row.type;
      values.targetHint = await this.checkTarget(type, input.target);
      const config = { ...this.openConfig(row), target: type === 'email' ? values.targetHint : input.target.trim() };
      values.configSealed = this.box.seal(JSON.stringify(config), sealPurpose(id));
    }
    const updated = await queries.updateChannel(this.db, tenantId, id, values);
    if (!updated) throw NotificationErrors.channelNotFound(id);
    return toDto(updated);
  }

  async delete(tenantId: string, id: string): Promise<ChannelDto> {
    const row = await queries.deleteChannel(this.db, tenantId, id);
    if (!row) throw NotificationErrors.channelNotFound(id);
    return toDto(row);
  }

  async deliveries(tenantId: string, id: string, window: ListWindow) {
    await this.find(tenantId, id);
    const { rows, total } = await queries.listDeliveries(this.db, id, window);
    return { results: rows.map(deliveryDto), total };
  }

  /** Queues a test notification to the channel; its delivery is answered at once and listed with the others. */
  async sendTest(tenantId: string, id: string): Promise<NotificationDeliveryDto> {
    const channel = await this.find(tenantId, id);
    const [row] = await this.enqueue(tenantId, newId('event'), 'test', [channel.id], {
      ...testMessage(channel.name, this.settings.dashboardUrl),
    });
    return deliveryDto(row);
  }

  /**
   * Turns a published event into notifications: incident events go to the channels chosen on their monitor,
   * certificate and container failures to every channel of the tenant; in both cases only to channels that
   * subscribe to the event type.
   */
  async notify(event: { tenantId: string; type: EventType; eventId: string; data: Record<string, unknown> }) {
    const notification = notificationOf(event.type, event.data, this.settings.dashboardUrl);
    if (!notification) return;
    const channels = await queries.channelsFor(this.db, event.tenantId, notification.type, {
      monitorId: notification.monitorId,
      trackingMonitorId: notification.trackingMonitorId,
    });
    await this.enqueue(
      event.tenantId,
      event.eventId,
      notification.type,
      channels.map((channel) => channel.id),
      notification.message,
    );
  }

  private async enqueue(
    tenantId: string,
    eventId: string,
    eventType: DeliveryEventType,
    channelIds: string[],
    message: NotificationMessage,
  ): Promise<NotificationDeliveryRow[]> {
    const now = new Date();
    const rows: NotificationDeliveryRow[] = channelIds.map((channelId) => ({
      id: newId('notification'),
      channelId,
      tenantId,
      eventId,
      eventType,
      message,
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: now,
      createdAt: now,
      deliveredAt: null,
    }));
    if (rows.length === 0) return rows;
    await queries.insertDeliveries(this.db, rows satisfies Array<typeof notificationDeliveries.$inferInsert>);
    await this.jobs.sendMany(
      NOTIFICATION_DELIVERIES,
      rows.map((row) => ({ deliveryId: row.id })),
    );
    return rows;
  }

  /** The channel's target and secret; only the delivery step and updates open them. */
  openConfig(row: NotificationChannelRow): ChannelConfig {
    return JSON.parse(this.box.open(row.configSealed, sealPurpose(row.id))) as ChannelConfig;
  }

  async unknownIds(tenantId: string, ids: string[]): Promise<string[]> {
    const owned = await queries.ownedChannelIds(this.db, tenantId, ids);
    return ids.filter((id) => !owned.has(id));
  }

  attach(monitorId: string, ids: string[]): Promise<void> {
    return queries.replaceMonitorChannels(this.db, monitorId, [...new Set(ids)]);
  }

  ofMonitors(monitorIds: string[]): Promise<Map<string, string[]>> {
    return queries.channelIdsOfMonitors(this.db, monitorIds);
  }
}
