import { Type, type Static } from 'typebox';

/** Schema of the consent check section (see consent-check.ts). */

export const RunSchema = Type.Object(
  {
    fired: Type.Boolean({ description: 'The tracker sent at least one request that got a response in this run.' }),
    cookies: Type.Array(Type.String(), { description: 'Names of cookies of this tracker present after the run.' }),
  },
  { additionalProperties: false },
);

const ClickSchema = Type.Object(
  {
    clicked: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'true: autoconsent ran the rule to the end; false: it found the banner but the click failed; null: it found no banner to click.',
    }),
    cut_short: Type.Boolean({ description: 'The run hit the scan time limit before it finished observing.' }),
  },
  { additionalProperties: false },
);

export const ConsentCheckSchema = Type.Object(
  {
    violations: Type.Array(
      Type.Object(
        {
          tracker: Type.String({ description: 'Tracker key.' }),
          name: Type.String(),
          fired: Type.Boolean({ description: 'It sent requests that got a response after "reject all".' }),
          cookies: Type.Array(Type.String(), { description: 'Its cookies present after "reject all".' }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Trackers that fired or set cookies after "reject all" was clicked (tag managers and consent platforms excluded). Empty when the reject click did not succeed: nothing is claimed then.',
      },
    ),
    cmp: Type.Union([Type.String(), Type.Null()], {
      description: 'Consent platform recognised by autoconsent (its rule name, e.g. `Onetrust`); null when none.',
    }),
    banner_found: Type.Boolean({ description: 'autoconsent found a visible banner in the reject or the accept run.' }),
    reject: ClickSchema,
    accept: ClickSchema,
    trackers: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          name: Type.String(),
          no_interaction: RunSchema,
          rejected: RunSchema,
          accepted: RunSchema,
        },
        { additionalProperties: false },
      ),
      { description: 'What each tracker did in each run.' },
    ),
    note: Type.String({ description: 'Plain-words outcome (English).' }),
  },
  {
    additionalProperties: false,
    description:
      'Present when consent_check was asked for: the page loaded three times in fresh browser contexts, with no interaction, after clicking "reject all" and after "accept all" (clicks by DuckDuckGo autoconsent).',
  },
);
export type ConsentCheck = Static<typeof ConsentCheckSchema>;
