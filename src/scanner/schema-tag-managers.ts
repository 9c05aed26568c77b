import { Type, type Static } from 'typebox';

/** TypeBox schema of what the page's tag-manager containers are configured to fire (issue 31). */

const ConfiguredTagSchema = Type.Object(
  {
    type: Type.String({
      description:
        'The container’s tag type, e.g. `__googtag`, `__awct`, `__html`, `__cvt_…` (custom template); for Launch, the action’s module path (`adobe-analytics/src/lib/actions/sendBeacon.js`, `core/src/lib/actions/customCode.js`).',
    }),
    key: Type.Union([Type.String(), Type.Null()], {
      description:
        'The tracker key (as in `trackers[].key`) the tag belongs to; null when neither its type nor its code names a known vendor.',
    }),
    vendor: Type.String({ description: 'The product’s name, or what the tag is (custom HTML, custom template).' }),
    ids: Type.Array(Type.String(), {
      description: 'Ids the tag is configured with (`G-…`, `AW-…/label`, a pixel id).',
    }),
    triggers: Type.Array(Type.String(), {
      description:
        'When it fires, in plain terms: `page view`, `DOM ready`, `scroll 50 %`, `link click`, `timer`, `custom event purchase`; `consent: ad_storage` for a consent type it requires.',
    }),
    fired: Type.Boolean({
      description: 'The scan saw this vendor (with one of these ids, when it has any) send or load.',
    }),
  },
  { additionalProperties: false },
);

export const TagManagerConfigSchema = Type.Object(
  {
    manager: Type.Union(
      [Type.Literal('google_tag_manager'), Type.Literal('matomo_tag_manager'), Type.Literal('adobe_launch')],
      {
        description:
          'The tag manager whose container was read: a GTM container (its gtm.js), a Matomo Tag Manager container (its `container_<id>.js`), or an Adobe Experience Platform tags (Launch) property, read from the runtime it set up in the page (`_satellite._container`, where each rule action is a tag and its events the triggers).',
      },
    ),
    container_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The container id (`GTM-…`) when the URL names it; for Matomo Tag Manager its 8-character id; for Launch, the property id (`PR…`).',
    }),
    url: Type.String({ description: 'The container script (for Launch, the library) the browser received.' }),
    readable: Type.Boolean({
      description: 'False when the script did not hold a container the scanner can read (then `tags` is empty).',
    }),
    version: Type.Union([Type.String(), Type.Null()], {
      description:
        'The container version it declares (for Matomo Tag Manager its version name); for Launch, the build date.',
    }),
    tags: Type.Array(ConfiguredTagSchema, {
      description: 'Tags configured in the container (trigger listeners left out).',
    }),
  },
  { additionalProperties: false },
);

export const TagManagerConfigsSchema = Type.Array(TagManagerConfigSchema, {
  description:
    'Tag-manager containers the page loaded, read for what they are configured to fire ("configured") beside what the scan saw firing ("fired"). Absent without a browser stage.',
});

export type TagManagerConfig = Static<typeof TagManagerConfigSchema>;
