import type { MailMessage } from '../../lib/mail.js';
import type { EventType } from '../webhooks/schemas.js';
import type { DeliveryEventType, NotificationEventType } from './schemas.js';

/** A notification in plain words; each channel type renders it its own way. */
export interface NotificationMessage {
  title: string;
  lines: string[];
  link: { label: string; url: string } | null;
}

/** What an event becomes: the notification, and the monitor whose channels it goes to (incidents). */
export interface Notification {
  type: NotificationEventType;
  monitorId: string | null;
  /** A tracking monitor's incident: only the channels chosen on that tracking monitor. */
  trackingMonitorId?: string;
  message: NotificationMessage;
}

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);

function incident(type: NotificationEventType, verb: string, data: Record<string, unknown>, baseUrl: string) {
  const monitorId = text(data.monitor_id);
  const name = text(data.name, monitorId);
  const lines = [`Monitor: ${name}`];
  if (data.url) lines.push(`Checks: ${text(data.url)}`);
  if (data.cause) lines.push(`Cause: ${text(data.cause)}`);
  if (data.resolved_by === 'user') lines.push('Resolved by hand.');
  lines.push(`Incident: ${text(data.incident_id)}`);
  const url = `${baseUrl}/dashboard/monitors/${encodeURIComponent(monitorId)}?incident=${encodeURIComponent(text(data.incident_id))}`;
  return {
    type,
    monitorId,
    message: { title: `Incident ${verb}: ${name}`, lines, link: { label: 'Open the incident', url } },
  };
}

/**
 * The notification an event calls for, or null: incidents opened, acknowledged and resolved, a certificate that
 * could not be issued, a container that failed, a container losing forwards.
 */
export function notificationOf(type: EventType, data: Record<string, unknown>, baseUrl: string): Notification | null {
  switch (type) {
    case 'incident.opened':
      return incident(type, 'opened', data, baseUrl);
    case 'incident.acknowledged':
      return incident(type, 'acknowledged', data, baseUrl);
    case 'incident.resolved':
      return incident(type, 'resolved', data, baseUrl);
    case 'domain.certificate_failed': {
      const hostname = text(data.hostname);
      const lines = [`Error: ${text(data.error)}`];
      lines.push(data.still_served ? 'The previous certificate is still served.' : 'HTTPS on this domain fails.');
      return {
        type: 'certificate.failed',
        monitorId: null,
        message: {
          title: `Certificate failed: ${hostname}`,
          lines,
          link: { label: 'Open the containers', url: `${baseUrl}/dashboard/containers` },
        },
      };
    }
    case 'domain.certificate_expiring':
      return certificateExpiring(data, baseUrl);
    case 'container.status_changed': {
      if (data.to !== 'failed') return null;
      const lines = [`Container: ${text(data.object_id)}`];
      if (data.reason) lines.push(`Reason: ${text(data.reason)}`);
      return {
        type: 'container.failed',
        monitorId: null,
        message: {
          title: `Container failed: ${text(data.object_id)}`,
          lines,
          link: { label: 'Open the containers', url: `${baseUrl}/dashboard/containers` },
        },
      };
    }
    case 'container.forwarding_degraded':
      return forwardingDegraded(data, baseUrl);
    case 'tracking_incident.opened':
    case 'tracking_incident.resolved':
      return trackingIncident(type, data, baseUrl);
    default:
      return null;
  }
}

function forwardingDegraded(data: Record<string, unknown>, baseUrl: string): Notification {
  const containerId = text(data.object_id);
  return {
    type: 'container.forwarding_degraded',
    monitorId: null,
    message: {
      title: `Forwards lost: ${containerId}`,
      lines: [
        `Day (UTC): ${text(data.day)}`,
        `Forwards failed for good: ${Number(data.forwards_failed)} (the vendor refused them, or they ran out of attempts)`,
        `Hits refused with 503 while the forward queue was full: ${Number(data.hits_refused)}`,
      ],
      link: { label: 'Open the containers', url: `${baseUrl}/dashboard/containers` },
    },
  };
}

/** A certificate near expiry goes to the channels of certificate failures: it is one, of every renewal so far. */
function certificateExpiring(data: Record<string, unknown>, baseUrl: string): Notification {
  const notAfter = text(data.not_after);
  const expired = Date.parse(notAfter) <= Date.now();
  const lines = [expired ? `Expired: ${notAfter}` : `Expires: ${notAfter}`];
  if (data.last_error) lines.push(`The last renewal failed: ${text(data.last_error)}`);
  lines.push('Renewals are retried; HTTPS on this domain fails once the certificate expires.');
  return {
    type: 'certificate.failed',
    monitorId: null,
    message: {
      title: `Certificate expiring: ${text(data.hostname)}`,
      lines,
      link: { label: 'Open the containers', url: `${baseUrl}/dashboard/containers` },
    },
  };
}

export function testMessage(channelName: string, baseUrl: string): NotificationMessage {
  return {
    title: `Test notification for ${channelName}`,
    lines: ['This is a test from Tagport: alerts for this channel arrive here.'],
    link: { label: 'Open the notification channels', url: `${baseUrl}/dashboard/notifications` },
  };
}

export function emailOf(to: string, message: NotificationMessage): MailMessage {
  return {
    to,
    subject: `[Tagport] ${message.title}`,
    paragraphs: [message.title, ...message.lines],
    action: message.link ?? undefined,
    footer: 'You receive this because this address is a notification channel of a Tagport tenant.',
  };
}

/** Slack's mrkdwn escapes only these three characters. */
const mrkdwn = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The incoming-webhook body Slack, Mattermost and Discord's `/slack` endpoint all accept: `text` is the whole
 * message (what Discord and notifications show), `blocks` the richer layout Slack renders.
 */
export function slackPayloadOf(message: NotificationMessage): { text: string; blocks: object[] } {
  const link = message.link ? `<${message.link.url}|${mrkdwn(message.link.label)}>` : null;
  const text = [`*${mrkdwn(message.title)}*`, ...message.lines.map(mrkdwn), ...(link ? [link] : [])].join('\n');
  const blocks: object[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${mrkdwn(message.title)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: message.lines.map(mrkdwn).join('\n') } },
  ];
  if (link) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: link }] });
  return { text, blocks };
}

/** The JSON a `webhook` channel receives, signed like webhook deliveries. */
export function webhookPayloadOf(
  delivery: { eventId: string; eventType: DeliveryEventType; tenantId: string; createdAt: Date },
  message: NotificationMessage,
) {
  return {
    id: delivery.eventId,
    type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    tenant_id: delivery.tenantId,
    data: { title: message.title, lines: message.lines, url: message.link?.url ?? null },
  };
}

/** A tracking regression found, or resolved: what changed, page by page, with a link to the monitor's runs. */
function trackingIncident(
  type: 'tracking_incident.opened' | 'tracking_incident.resolved',
  data: Record<string, unknown>,
  baseUrl: string,
): Notification {
  const monitorId = text(data.tracking_monitor_id);
  const name = text(data.name, monitorId);
  const opened = type === 'tracking_incident.opened';
  const changes = Array.isArray(data.changes) ? (data.changes as Array<Record<string, unknown>>) : [];
  const lines = opened
    ? changes.slice(0, 10).map((change) => `${text(change.severity)}: ${text(change.message)} (${text(change.page)})`)
    : [data.resolution === 'baseline_accepted' ? 'A new baseline was accepted.' : 'The last run matched the baseline.'];
  if (changes.length > 10) lines.push(`… and ${changes.length - 10} more changes.`);
  lines.push(`Incident: ${text(data.incident_id)}`);
  return {
    type,
    monitorId: null,
    trackingMonitorId: monitorId,
    message: {
      title: `Tracking ${opened ? 'changed' : 'back to baseline'}: ${name}`,
      lines,
      link: {
        label: 'Open the tracking monitor',
        url: `${baseUrl}/dashboard/tracking-monitors/${encodeURIComponent(monitorId)}`,
      },
    },
  };
}
