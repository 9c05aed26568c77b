import { Type, type Static } from 'typebox';
import { literals } from './schema-findings.js';

/** Schema of the behaviours section (see behaviours.ts): what scripts on the page did, as Blacklight reports it. */

export const BEHAVIOUR_TYPES = [
  'canvas_fingerprinting',
  'keystroke_capture',
  'session_recording',
  'remarketing_audience',
] as const;

export const BehaviourEvidenceSchema = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('canvas_readback'),
        Type.Literal('typed_value_sent'),
        Type.Literal('recorder_script'),
        Type.Literal('recording_hit'),
        Type.Literal('audience_hit'),
      ],
      { description: 'What was observed.' },
    ),
    url: Type.String({
      description:
        'The script that did it (canvas_readback, recorder_script) or the request that carried it (the other kinds); at most 300 characters.',
    }),
    detail: Type.String({ description: 'What the evidence shows, in plain words.' }),
  },
  { additionalProperties: false },
);

export const BehaviourSchema = Type.Object(
  {
    type: literals(BEHAVIOUR_TYPES, {
      description:
        'canvas_fingerprinting: a script drew text or several colours on a canvas of at least 16×16 and read the pixels back (toDataURL/getImageData), without the save/restore/event listener calls of a drawing that is shown. keystroke_capture: what the scan typed into a form field (never submitted) was sent in a request, plain, URL-encoded, base64 or hashed (SHA-256, SHA-1, MD5). session_recording: a session-replay vendor’s recorder loaded or sent recording data. remarketing_audience: the page adds visitors to a Meta or Google Ads audience.',
    }),
    vendor_or_host: Type.String({
      description:
        'The vendor when known (session recording, remarketing), else the host of the script (canvas) or of the request that received the typed value.',
    }),
    first_party: Type.Optional(
      Type.Boolean({ description: 'The host belongs to the scanned site (keystroke capture and canvas only).' }),
    ),
    ids: Type.Optional(
      Type.Array(Type.String(), { description: 'Pixel or conversion ids the audience hits carried (remarketing).' }),
    ),
    evidence: Type.Array(BehaviourEvidenceSchema, { description: 'At most 5 items.' }),
  },
  { additionalProperties: false },
);

export const BehavioursSchema = Type.Array(BehaviourSchema, {
  description:
    'Behaviours observed in the browser stage (only requests that got a response count). To see keystroke capture the scan types a unique value into up to 5 visible text and email fields, never a password or search field, and never submits. Absent when the browser stage did not run.',
});

export type Behaviour = Static<typeof BehaviourSchema>;
export type BehaviourEvidence = Static<typeof BehaviourEvidenceSchema>;
export type BehaviourType = (typeof BEHAVIOUR_TYPES)[number];
