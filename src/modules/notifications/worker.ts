import type { Database } from '../../db/index.js';
import type { Mailer } from '../../lib/mail.js';
import type { OutboundClient } from '../../lib/outbound.js';
import { signPayload, SIGNATURE_HEADER } from '../webhooks/service.js';
import { emailOf, slackPayloadOf, webhookPayloadOf, type NotificationMessage } from './messages.js';
import * as queries from './queries.js';
import type { DeliveryEventType } from './schemas.js';
import type { NotificationService } from './service.js';

export interface DeliverySettings {
  /** Delay before the first retry; doubles with every attempt. */
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

/** A failed attempt that will be tried again: the job fails so that pg-boss schedules the retry. */
export class NotificationAttemptFailed extends Error {}

interface Attempt {
  statusCode: number | null;
  error: string | null;
  /** A failure no retry can mend (no SMTP configured): the delivery fails at once. */
  final?: boolean;
}

const describe = (caught: unknown) =>
  caught instanceof Error ? `${(caught as { code?: string }).code ?? 'error'}: ${caught.message}` : String(caught);

/** Sends notification deliveries, one attempt per job. */
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
    const config = this.notifications.openConfig(channel);
    const message = delivery.message as unknown as NotificationMessage;
    let attempt: Attempt;
    if (channel.type === 'email') attempt = await this.sendEmail(config.target, message);
    else if (channel.type === 'slack')
      attempt = await this.post(config.target, JSON.stringify(slackPayloadOf(message)));
    else {
      const body = JSON.stringify(
        webhookPayloadOf({ ...delivery, eventType: delivery.eventType as DeliveryEventType }, message),
      );
      attempt = await this.post(config.target, body, {
        [SIGNATURE_HEADER]: signPayload(config.secret ?? '', body),
        'tagport-event-id': delivery.eventId,
        'tagport-event-type': delivery.eventType,
        'tagport-delivery-id': delivery.id,
      });
    }
    const attempts = delivery.attempts + 1;
    const succeeded = attempt.error === null;
    const exhausted = !succeeded && (attempt.final || attempts >= this.settings.maxAttempts);
    await queries.recordAttempt(db, delivery.id, {
      status: succeeded ? 'succeeded' : exhausted ? 'failed' : 'pending',
      statusCode: attempt.statusCode,
      error: attempt.error,
      nextAttemptAt:
        succeeded || exhausted ? null : new Date(Date.now() + this.settings.retryBaseMs * 2 ** (attempts - 1)),
    });
    if (!succeeded && !attempt.final)
      throw new NotificationAttemptFailed(`notification ${delivery.id} attempt ${attempts}: ${attempt.error}`);
  }

  private async sendEmail(to: string, message: NotificationMessage): Promise<Attempt> {
    const outcome = await this.mailer.send(emailOf(to, message));
    if (outcome.sent) return { statusCode: null, error: null };
    if (outcome.reason === 'not_configured')
      return { statusCode: null, error: 'no SMTP server is configured (SMTP_URL)', final: true };
    return { statusCode: null, error: 'the mail server refused the message or could not be reached' };
  }

  /** POSTs JSON through the outbound guard; the URL never appears in the error (a Slack URL is a secret). */
  private async post(target: string, body: string, headers: Record<string, string> = {}): Promise<Attempt> {
    try {
      const url = await this.outbound.checkUrl(target);
      const response = await this.outbound.send(url, {
        method: 'POST',
        timeoutMs: this.settings.timeoutMs,
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return { statusCode: response.statusCode, error: ok ? null : `endpoint answered ${response.statusCode}` };
    } catch (caught) {
      return { statusCode: null, error: describe(caught).replaceAll(target, '[url]') };
    }
  }
}
