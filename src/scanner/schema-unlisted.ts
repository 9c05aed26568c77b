import { Type, type Static } from 'typebox';
import { TRACKER_CATEGORIES, literals, nullable } from './schema-findings.js';

/** TypeBox schema of the third parties that behaved like trackers without any rule naming them (issue 31). */

export const UNLISTED_EVIDENCE_KINDS = [
  'script',
  'id_parameter',
  'beacon',
  'cookie',
  'storage',
  'fingerprinting',
  'typed_value_sent',
  'service_worker',
] as const;

export const UNLISTED_CONFIDENCES = ['high', 'medium', 'low'] as const;

const UnlistedEvidenceSchema = Type.Object(
  {
    kind: literals(UNLISTED_EVIDENCE_KINDS, {
      description:
        'script: a script loaded from the domain. id_parameter: a request to it carried an account, site, project, app, pixel or property id under a documented parameter name. beacon: it received data in a POST body or a sendBeacon/ping. cookie: a cookie its script wrote or its response set. storage: its script wrote an identifier (a UUID or a random-looking token, not a preference such as `theme=dark`) to localStorage or sessionStorage. fingerprinting: its script read a canvas back as a fingerprint. typed_value_sent: what the scan typed into a form field (never submitted) was sent to it. service_worker: its script registered a service worker, or the worker script came from it.',
    }),
    detail: Type.String({ description: 'What was seen, in plain words, with the URL or cookie name involved.' }),
  },
  { additionalProperties: false },
);

export const UnlistedTrackerSchema = Type.Object(
  {
    domain: Type.String({
      description:
        'The registrable domain of a third party the evidence is grouped under, e.g. `vendor.com`; for a first-party proxy, its host (e.g. `t.example.com`).',
    }),
    first_party: Type.Boolean({
      description:
        "A host of the scanned site's own domain, other than the page's host, the bare domain and www (a vendor behind a first-party proxy); listed only with high confidence, as the site's own API also receives ids.",
    }),
    name: Type.Union([Type.String(), Type.Null()], {
      description:
        'The entity third-party-web files the domain under (which lists it as a utility, CDN, hosting or content provider); null when no list knows it.',
    }),
    hosts: Type.Array(Type.String(), { description: 'Hosts of the domain the page loaded from or sent to.' }),
    category_guess: nullable(
      literals(TRACKER_CATEGORIES, { description: 'A tracker category.' }),
      'What the behaviour suggests: session_replay when it received what was typed into a field (before any submit); null when the evidence does not tell.',
    ),
    confidence: literals(UNLISTED_CONFIDENCES, {
      description:
        'How strong the evidence is. Each kind of sign is a point (a typed value sent or a canvas fingerprint two, a script none): high from 3 points, medium 2, low 1 (listed only beside a script from the domain).',
    }),
    evidence: Type.Array(UnlistedEvidenceSchema, {
      description: 'Observations behind it, strongest first (at most 12).',
    }),
    ids: Type.Array(Type.String(), {
      description: 'Account, site, project or app ids its requests carried under documented parameter names.',
    }),
  },
  { additionalProperties: false },
);

export const UnlistedTrackersSchema = Type.Array(UnlistedTrackerSchema, {
  description:
    'Third parties no tracker rule names that behaved like trackers in the browser stage (only requests that got a response count), grouped by registrable domain, most confident first. Never part of `trackers`, the summary or the loss estimate. Domains of named trackers, consent platforms, and hosts that only served files (a library from a CDN, fonts) are not listed. Absent without a browser stage.',
});

export type UnlistedTracker = Static<typeof UnlistedTrackerSchema>;
export type UnlistedEvidence = Static<typeof UnlistedEvidenceSchema>;
