import { Type, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { ACTIONS, CONTAINER_STATUSES } from '../containers/schemas.js';
import { FAILURE_REASONS } from '../domains/schemas.js';
import { REPORT_FORMATS, REPORT_KINDS } from '../reports/schemas.js';
import { TRACKING_INCIDENT_EVENTS } from '../tracking-monitors/events.js';
import type { EventType } from './schemas.js';

/** What each event's `data` holds, for the OpenAPI `webhooks` section (src/modules/webhooks/openapi.ts). */

/** The fields every event of a container or domain carries: the object it is about. */
const objectFields = (type: 'container' | 'domain') => ({
  object_type: StringEnum([type] as const),
  object_id: Type.String({ description: `Id of the ${type}.` }),
});

const monitorFields = {
  monitor_id: Type.String({ description: 'Id of the monitor (`mon_…`).' }),
  name: Type.String({ description: 'Name of the monitor.' }),
  url: Type.String({ description: 'The URL the monitor checks.' }),
};

export interface EventDocumentation {
  summary: string;
  data: TSchema;
  example: Record<string, unknown>;
}

const closed = (properties: Parameters<typeof Type.Object>[0]) =>
  Type.Object(properties, { additionalProperties: false });

const roleField = StringEnum(['owner', 'admin', 'member'] as const);
/** Who made a membership change: the signed-in user, or the API key. */
const actorFields = {
  actor_user_id: Nullable(Type.String()),
  actor_api_key_id: Nullable(Type.String()),
};
const actorExample = { actor_user_id: 'usr_01jdv3k2m8q4r7s9t0v1w2x3y5', actor_api_key_id: null };

/** What each event type's `data` holds, as its publisher builds it. */
export const EVENTS: Record<EventType, EventDocumentation> = {
  'monitor.down': {
    summary: 'A monitor failed its checks and is down.',
    data: closed({
      ...monitorFields,
      error: Nullable(Type.String(), { description: 'Why the last check failed.' }),
      status_code: Nullable(Type.Integer(), { description: 'HTTP status of the last check, if it got one.' }),
    }),
    example: {
      monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4',
      name: 'Shop home',
      url: 'https://shop.example.com/',
      error: 'expected status 200, got 503',
      status_code: 503,
    },
  },
  'monitor.up': {
    summary: 'A monitor that was down passes its checks again.',
    data: closed({
      ...monitorFields,
      status_code: Nullable(Type.Integer()),
      latency_ms: Nullable(Type.Number({ description: 'Duration of the passing check.' })),
    }),
    example: {
      monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4',
      name: 'Shop home',
      url: 'https://shop.example.com/',
      status_code: 200,
      latency_ms: 182,
    },
  },
  'incident.opened': {
    summary: 'A monitor went down and an incident was opened.',
    data: closed({
      ...monitorFields,
      incident_id: Type.String({ description: 'Id of the incident (`inc_…`).' }),
      cause: Type.String({ description: 'The failure that opened the incident.' }),
    }),
    example: {
      monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4',
      name: 'Shop home',
      url: 'https://shop.example.com/',
      incident_id: 'inc_01jdv3k2m8q4r7s9t0v1w2x3y4',
      cause: 'expected status 200, got 503',
    },
  },
  'incident.acknowledged': {
    summary: 'Someone acknowledged an open incident through the API or the dashboard.',
    data: closed({ incident_id: Type.String(), ...monitorFields }),
    example: {
      incident_id: 'inc_01jdv3k2m8q4r7s9t0v1w2x3y4',
      monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4',
      name: 'Shop home',
      url: 'https://shop.example.com/',
    },
  },
  'incident.resolved': {
    summary: 'An incident was resolved: its monitor recovered, or a user resolved it.',
    data: closed({
      incident_id: Type.String(),
      monitor_id: Type.String(),
      name: Type.Optional(Type.String({ description: 'Name of the monitor.' })),
      url: Type.Optional(Type.String({ description: 'The URL the monitor checks.' })),
      resolved_by: Type.Optional(
        StringEnum(['user'] as const, { description: 'Present when a user resolved it through the API.' }),
      ),
    }),
    example: {
      incident_id: 'inc_01jdv3k2m8q4r7s9t0v1w2x3y4',
      monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4',
      name: 'Shop home',
      url: 'https://shop.example.com/',
    },
  },
  'container.status_changed': {
    summary: 'A container moved to another state.',
    data: closed({
      ...objectFields('container'),
      from: Nullable(StringEnum(CONTAINER_STATUSES), { description: 'The previous state (null when created).' }),
      to: StringEnum(CONTAINER_STATUSES),
      action: Type.Optional(StringEnum(ACTIONS, { description: 'The action that started the transition.' })),
      reason: Type.Optional(Nullable(Type.String(), { description: 'Why, when the worker moved it.' })),
    }),
    example: {
      object_type: 'container',
      object_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4',
      from: 'stopped',
      to: 'starting',
      action: 'start',
    },
  },
  'container.forwarding_degraded': {
    summary:
      'A builtin container lost forwards today: failed for good, or hits refused with its forward queue full. At most one an hour per container while the losses go on.',
    data: closed({
      ...objectFields('container'),
      day: Type.String({ format: 'date', description: 'The UTC day the counts are for.' }),
      forwards_failed: Type.Integer({
        description: 'Forwards that failed for good that day (vendor refused, or out of attempts).',
      }),
      hits_refused: Type.Integer({ description: 'Hits answered 503 that day because the forward queue was full.' }),
      new_losses: Type.Integer({ description: 'Losses since the previous alert of that day.' }),
    }),
    example: {
      object_type: 'container',
      object_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4',
      day: '2026-11-27',
      forwards_failed: 12,
      hits_refused: 0,
      new_losses: 12,
    },
  },
  'domain.verified': {
    summary: 'A domain passed DNS verification and is served.',
    data: closed({ ...objectFields('domain'), hostname: Type.String(), reason: Type.Null() }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      reason: null,
    },
  },
  'domain.failed': {
    summary: 'A domain failed DNS verification.',
    data: closed({ ...objectFields('domain'), hostname: Type.String(), reason: StringEnum(FAILURE_REASONS) }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      reason: 'missing_txt',
    },
  },
  'domain.released': {
    summary: 'A domain claim was released: never verified in time, or the hostname was proven by another tenant.',
    data: closed({
      ...objectFields('domain'),
      hostname: Type.String(),
      reason: StringEnum(['expired', 'ownership_proven_elsewhere'] as const),
    }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      reason: 'expired',
    },
  },
  'domain.certificate_issued': {
    summary: 'A TLS certificate was issued (or renewed) for a domain.',
    data: closed({
      ...objectFields('domain'),
      hostname: Type.String(),
      issuer: Type.String(),
      not_after: Type.String({ format: 'date-time', description: 'When the certificate expires.' }),
    }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      issuer: "Let's Encrypt",
      not_after: '2027-02-21T17:00:00.000Z',
    },
  },
  'domain.certificate_failed': {
    summary: 'Issuing a TLS certificate for a domain failed (sent on the first failed attempt).',
    data: closed({
      ...objectFields('domain'),
      hostname: Type.String(),
      error: Type.String(),
      still_served: Type.Boolean({ description: 'Whether an earlier certificate is still valid and served.' }),
    }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      error: 'the ACME HTTP-01 challenge failed',
      still_served: false,
    },
  },
  'domain.certificate_expiring': {
    summary:
      "A domain's certificate is near expiry because its renewals keep failing (sent once per certificate: halfway from when renewal was due to expiry, at most 14 days before it).",
    data: closed({
      ...objectFields('domain'),
      hostname: Type.String(),
      not_after: Type.String({ format: 'date-time', description: 'When the certificate expires.' }),
      last_error: Nullable(Type.String(), { description: 'Why the last renewal failed; null when none was tried.' }),
    }),
    example: {
      object_type: 'domain',
      object_id: 'dom_01jdv3k2m8q4r7s9t0v1w2x3y4',
      hostname: 'data.shop.example',
      not_after: '2027-02-21T17:00:00.000Z',
      last_error: 'the ACME HTTP-01 challenge failed',
    },
  },
  'report.ready': {
    summary: 'A requested report is built and can be downloaded.',
    data: closed({ report_id: Type.String(), kind: StringEnum(REPORT_KINDS), format: StringEnum(REPORT_FORMATS) }),
    example: { report_id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4', kind: 'uptime', format: 'csv' },
  },
  'tracking_checker.scan.completed': {
    summary: 'A tracking-checker scan finished.',
    data: closed({
      scan_id: Type.String(),
      url: Type.String(),
      final_url: Type.String(),
      trackers: Type.Integer({ description: 'Number of trackers found.' }),
    }),
    example: {
      scan_id: 'scn_01jdv3k2m8q4r7s9t0v1w2x3y4',
      url: 'https://shop.example.com/',
      final_url: 'https://shop.example.com/de/',
      trackers: 7,
    },
  },
  'tracking_checker.scan.failed': {
    summary: 'A tracking-checker scan was interrupted (the server stopped) before it finished.',
    data: closed({
      scan_id: Type.String(),
      url: Type.String(),
      error: closed({ code: Type.String(), message: Type.String() }),
    }),
    example: {
      scan_id: 'scn_01jdv3k2m8q4r7s9t0v1w2x3y4',
      url: 'https://shop.example.com/',
      error: { code: 'interrupted', message: 'The scan was interrupted (the server stopped) before it finished.' },
    },
  },
  'member.invited': {
    summary: 'Someone was invited to the tenant with a role.',
    data: closed({ email: Type.String(), role: roleField, ...actorFields }),
    example: { email: 'sam@example.com', role: 'admin', ...actorExample },
  },
  'member.invitation_revoked': {
    summary: 'A pending invitation was revoked (or replaced by a new one to the same address).',
    data: closed({
      email: Type.String(),
      role: Type.Optional(roleField),
      replaced_by: Type.Optional(Type.String({ description: 'The invitation that replaced it.' })),
      ...actorFields,
    }),
    example: { email: 'sam@example.com', role: 'admin', ...actorExample },
  },
  'member.joined': {
    summary: 'An invitation was accepted: the person is now a member.',
    data: closed({
      user_id: Type.String(),
      email: Type.String(),
      role: roleField,
      invitation_id: Type.String(),
    }),
    example: {
      user_id: 'usr_01jdv3k2m8q4r7s9t0v1w2x3y4',
      email: 'sam@example.com',
      role: 'admin',
      invitation_id: 'inv_01jdv3k2m8q4r7s9t0v1w2x3y4',
    },
  },
  'member.role_changed': {
    summary: "A member's role changed; their sessions use the new role at once.",
    data: closed({
      user_id: Type.String(),
      email: Type.String(),
      role: roleField,
      previous_role: roleField,
      ...actorFields,
    }),
    example: {
      user_id: 'usr_01jdv3k2m8q4r7s9t0v1w2x3y4',
      email: 'sam@example.com',
      role: 'member',
      previous_role: 'admin',
      ...actorExample,
    },
  },
  'member.removed': {
    summary: 'A member was removed from the tenant; their sessions in it ended.',
    data: closed({ user_id: Type.String(), email: Type.String(), role: roleField, ...actorFields }),
    example: { user_id: 'usr_01jdv3k2m8q4r7s9t0v1w2x3y4', email: 'sam@example.com', role: 'member', ...actorExample },
  },
  ...TRACKING_INCIDENT_EVENTS,
};
