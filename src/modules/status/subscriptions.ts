import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { JobEngine } from '../../jobs/engine.js';
import type { Mailer } from '../../lib/mail.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import { sha256Hex } from '../../lib/tokens.js';
import { outboundUrlRefused } from '../../lib/errors.js';
import { isEmail } from '../auth/schemas.js';
import { StatusErrors } from './errors.js';
import * as queries from './queries.js';

/** Queue of notices to subscribers: one job per subscriber and notice, retried on failure. */
export const STATUS_NOTIFICATIONS = 'status-notifications';

/** What subscribers are told: an incident update or a maintenance window. */
export interface StatusNotice {
  kind: 'incident' | 'maintenance';
  id: string;
  title: string;
  /** investigating, identified, monitoring, resolved; or scheduled, cancelled for maintenance. */
  status: string;
  message: string;
  component: string | null;
  at: string;
}

export interface SubscriptionOutcome {
  type: 'email' | 'webhook';
  status: 'pending_confirmation' | 'active';
  unsubscribe_token: string | null;
}

const token = () => randomBytes(24).toString('base64url');
/** Anonymous webhook subscriptions per hostname: enough for a team's endpoints, too few to flood one host. */
export const WEBHOOKS_PER_HOST = 3;

/** Email (double opt-in) and webhook subscriptions to the status page, and the notices sent to them. */
export class StatusSubscriptions {
  private readonly database: Database;
  private readonly jobs: JobEngine;
  private readonly mailer: Mailer;
  private readonly outbound: OutboundClient;

  constructor(
    {
      database,
      jobs,
      mailer,
      outbound,
    }: { database: Database; jobs: JobEngine; mailer: Mailer; outbound: OutboundClient },
    private readonly settings: { baseUrl: string; webhookTimeoutMs: number },
  ) {
    this.database = database;
    this.jobs = jobs;
    this.mailer = mailer;
    this.outbound = outbound;
  }

  /**
   * An email address gets a confirmation link and hears nothing until it is followed (the answer is the same
   * whether or not the address was subscribed already, cooling down or capped); a webhook URL is active at once.
   * `publicBaseUrl` (PUBLIC_BASE_URL) is where the links in mail point: never the request's Host.
   */
  async subscribe(
    input: { email?: string; webhook_url?: string },
    publicBaseUrl: string | null,
  ): Promise<SubscriptionOutcome> {
    if ((input.email === undefined) === (input.webhook_url === undefined))
      throw StatusErrors.subscriptionTargetRequired();
    if (input.email !== undefined) return this.subscribeEmail(input.email.trim().toLowerCase(), publicBaseUrl);
    return this.subscribeWebhook(input.webhook_url!);
  }

  /** Whether email subscriptions can work here: mail is configured, and PUBLIC_BASE_URL to build its links from. */
  emailAvailable(publicBaseUrl: string | null): boolean {
    return this.mailer.configured && publicBaseUrl !== null;
  }

  /**
   * One pending confirmation per address: a repeat within the cool-down re-uses the link already mailed, a later
   * one gets a fresh link, and at most CONFIRMATIONS_PER_DAY mails go to one address in a day.
   */
  private async subscribeEmail(email: string, publicBaseUrl: string | null): Promise<SubscriptionOutcome> {
    if (!isEmail(email)) throw StatusErrors.subscriptionTargetRequired();
    if (!this.mailer.configured) throw StatusErrors.emailUnavailable();
    if (publicBaseUrl === null) throw StatusErrors.emailNeedsPublicBaseUrl();
    const confirmToken = token();
    const row = await queries.claimConfirmationMail(this.database.db, {
      email,
      confirmTokenHash: sha256Hex(confirmToken),
      unsubscribeToken: token(),
    });
    if (row)
      await this.mailer.send({
        to: email,
        subject: 'Confirm your subscription to Tagport status',
        paragraphs: [
          'Someone, hopefully you, asked to hear about Tagport incidents and maintenance at this address.',
          'Nothing will be sent until you confirm. If it was not you, ignore this email.',
        ],
        action: { label: 'Confirm the subscription', url: `${publicBaseUrl}/status/confirm?token=${confirmToken}` },
        footer: `Changed your mind? ${publicBaseUrl}/status/unsubscribe?token=${row.unsubscribeToken}`,
      });
    return { type: 'email', status: 'pending_confirmation', unsubscribe_token: null };
  }

  /** Active at once; at most WEBHOOKS_PER_HOST subscriptions per hostname, a repeat of one re-uses it. */
  private async subscribeWebhook(raw: string): Promise<SubscriptionOutcome> {
    let url: URL;
    try {
      url = await this.outbound.checkUrl(raw);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw outboundUrlRefused(error, 'webhook_url', 'webhook_url');
      throw error;
    }
    const unsubscribeToken = token();
    const row = await queries.insertWebhookUnderCap(this.database.db, {
      url,
      unsubscribeToken,
      cap: WEBHOOKS_PER_HOST,
    });
    if (!row) throw StatusErrors.webhookSubscriptionLimit(url.hostname, WEBHOOKS_PER_HOST);
    // An existing subscription keeps its token: telling it to whoever sends the URL again would let them remove it.
    return {
      type: 'webhook',
      status: 'active',
      unsubscribe_token: row.unsubscribeToken === unsubscribeToken ? unsubscribeToken : null,
    };
  }

  async confirm(confirmToken: string): Promise<SubscriptionOutcome> {
    const row = await queries.confirmSubscription(this.database.db, sha256Hex(confirmToken));
    if (!row) throw StatusErrors.invalidSubscriptionToken();
    return { type: 'email', status: 'active', unsubscribe_token: null };
  }

  async unsubscribe(unsubscribeToken: string): Promise<{ type: 'email' | 'webhook'; status: 'unsubscribed' }> {
    const row = await queries.deleteSubscription(this.database.db, unsubscribeToken);
    if (!row) throw StatusErrors.invalidSubscriptionToken();
    return { type: row.kind, status: 'unsubscribed' };
  }

  /** Queues the notice for every confirmed subscriber. */
  async notify(notice: StatusNotice): Promise<void> {
    const ids = await queries.confirmedSubscriptionIds(this.database.db);
    await this.jobs.sendMany(
      STATUS_NOTIFICATIONS,
      ids.map((subscriptionId) => ({ subscriptionId, notice })),
    );
  }

  /** Job handler: tells one subscriber; throws on failure so the job engine retries. */
  async deliver({ subscriptionId, notice }: { subscriptionId: string; notice: StatusNotice }): Promise<void> {
    const row = await queries.findSubscription(this.database.db, subscriptionId);
    if (!row?.confirmedAt) return;
    const unsubscribeUrl = `${this.settings.baseUrl}/status/unsubscribe?token=${row.unsubscribeToken}`;
    if (row.kind === 'email') {
      const outcome = await this.mailer.send(this.noticeMail(row.target, notice, unsubscribeUrl));
      if (!outcome.sent && outcome.reason === 'failed') throw new Error('status notice email not sent');
      return;
    }
    const url = await this.outbound.checkUrl(row.target);
    const response = await this.outbound.send(url, {
      method: 'POST',
      timeoutMs: this.settings.webhookTimeoutMs,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: `status.${notice.kind}`,
        ...notice,
        page_url: `${this.settings.baseUrl}/status`,
        unsubscribe_url: unsubscribeUrl,
      }),
    });
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new Error(`status webhook answered ${response.statusCode}`);
  }

  private noticeMail(to: string, notice: StatusNotice, unsubscribeUrl: string) {
    const what = notice.kind === 'incident' ? `Incident ${notice.status}` : `Maintenance ${notice.status}`;
    return {
      to,
      subject: `[Tagport status] ${what}: ${notice.title}`,
      paragraphs: [`${what}${notice.component ? ` (${notice.component})` : ''} at ${notice.at}.`, notice.message],
      action: { label: 'Open the status page', url: `${this.settings.baseUrl}/status#${notice.id}` },
      footer: `You get this because you subscribed to Tagport status. Unsubscribe: ${unsubscribeUrl}`,
    };
  }
}
