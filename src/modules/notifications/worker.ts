import type { Database } from '../../db/index.js';
import { settleAttempt, type DeliveryAttemptSettings } from '../../lib/delivery-attempts.js';
import type { Mailer } from '../../lib/mail.js';
import type { OutboundClient } from '../../lib/outbound.js';
import { channels } from './channels/index.js';
import * as queries from './queries.js';
import type { NotificationService } from './service.js';

export type DeliverySettings = DeliveryAttemptSettings;

/** A failed attempt that will be tried again: the job fails so that pg-boss schedules the retry. */
export class NotificationAttemptFailed extends Error {}

/** Sends notification deliveries, one attempt per job, through the channel of the channel's type. */
export class NotificationWorker {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly mailer: Mailer;
  private readonly notifications: NotificationService;

  constructor(
    {
      database,
      outbound,
      mailer,
      notifications,
    }: { database: Database; outbound: OutboundClient; mailer: Mailer; notifications: NotificationService },
    private readonly settings: DeliverySettings,
  ) {
    this.database = database;
    this.outbound = outbound;
    this.mailer = mailer;
    this.notifications = notifications;
  }

  /**
   * One attempt of a delivery (the job handler). A failure with attempts left throws so pg-boss retries it after
   * its backoff; the last one marks the delivery failed and throws, so the job lands in the dead letter queue.
   */
  async deliver({ deliveryId }: { deliveryId: string }): Promise<void> {
    const db = this.database.db;
    const delivery = await queries.findDelivery(db, deliveryId);
    if (delivery?.status !== 'pending') return;
    const channel = await queries.findChannelById(db, delivery.channelId);
    if (!channel) return;
    const attempt = await channels[channel.type].send(
      { outbound: this.outbound, mailer: this.mailer, timeoutMs: this.settings.timeoutMs },
      {
        config: this.notifications.openConfig(channel),
        message: delivery.message,
        delivery,
      },
    );
    await settleAttempt(delivery, attempt, {
      settings: this.settings,
      record: (id, outcome) => queries.recordAttempt(db, id, outcome),
      failure: (message) => new NotificationAttemptFailed(`notification ${message}`),
    });
  }
}
