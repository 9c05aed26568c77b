import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { SEVERITIES, TRACKING_INCIDENT_RESOLUTIONS, TRACKING_RULES } from './schemas.js';

const closed = (properties: Parameters<typeof Type.Object>[0]) =>
  Type.Object(properties, { additionalProperties: false });

const incidentFields = {
  tracking_monitor_id: Type.String({ description: 'Id of the tracking monitor (`tmo_…`).' }),
  name: Type.String({ description: 'Name of the tracking monitor.' }),
  incident_id: Type.String({ description: 'Id of the tracking incident (`tin_…`).' }),
};
const ids = {
  tracking_monitor_id: 'tmo_01jdv3k2m8q4r7s9t0v1w2x3y4',
  name: 'Shop tracking',
  incident_id: 'tin_01jdv3k2m8q4r7s9t0v1w2x3y4',
};

/** The `data` of the tracking monitors' events, for the OpenAPI `webhooks` section. */
export const TRACKING_INCIDENT_EVENTS = {
  'tracking_incident.opened': {
    summary:
      "A tracking monitor's run differs from its baseline (a tracker gone, an id changed, a tag firing before consent…).",
    data: closed({
      ...incidentFields,
      run_id: Type.String({ description: 'The run that found the change (`trn_…`).' }),
      severity: StringEnum(SEVERITIES),
      changes: Type.Array(
        closed({
          rule: StringEnum(TRACKING_RULES),
          severity: StringEnum(SEVERITIES),
          page: Type.String(),
          tracker: Nullable(Type.String()),
          message: Type.String(),
        }),
        { description: 'What changed; the run has the evidence.' },
      ),
    }),
    example: {
      ...ids,
      run_id: 'trn_01jdv3k2m8q4r7s9t0v1w2x3y4',
      severity: 'critical',
      changes: [
        {
          rule: 'tracker_removed',
          severity: 'critical',
          page: 'https://shop.example.com/',
          tracker: 'meta_pixel',
          message: 'Meta Pixel no longer loads.',
        },
      ],
    },
  },
  'tracking_incident.resolved': {
    summary: 'A tracking incident resolved: a later run matched the baseline, or a new baseline was accepted.',
    data: closed({ ...incidentFields, resolution: StringEnum(TRACKING_INCIDENT_RESOLUTIONS) }),
    example: { ...ids, resolution: 'run_matched' },
  },
};
