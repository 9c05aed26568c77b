import type { TrackerKey } from './trackers.js';

/**
 * Script tags configured through data-* attributes, as the privacy-friendly and self-hostable analytics tools document
 * them: the attribute names the tool and carries its site id, wherever the script is served from.
 */

export interface AttributeMatch {
  key: TrackerKey;
  id: string | null;
  detail: string;
  /** Where the tool sends hits, when the attributes say (`data-api`, `data-host-url`, …). */
  endpoint: string | null;
}

interface AttributeRule {
  key: TrackerKey;
  /** The attribute that identifies the tool; its value is the id unless `id` says otherwise. */
  marker: string;
  /** The script's src must match (the attribute alone is too generic). */
  src?: RegExp;
  id?: (attributes: Record<string, string>) => string | null;
  endpoint?: string[];
}

const RULES: AttributeRule[] = [
  { key: 'plausible', marker: 'data-domain', src: /\/(script|plausible)(\.[\w-]+)*\.js$/, endpoint: ['data-api'] },
  {
    key: 'umami',
    marker: 'data-website-id',
    src: /\.js$/,
    endpoint: ['data-host-url'],
    id: (a) => (/^[0-9a-f-]{36}$/i.test(a['data-website-id']) ? a['data-website-id'] : null),
  },
  { key: 'fathom', marker: 'data-site', src: /(usefathom\.com\/|\/script\.js$)/ },
  { key: 'simple_analytics', marker: 'data-hostname', src: /simpleanalyticscdn\.com\/|\/latest\.js$/ },
  {
    key: 'goatcounter',
    marker: 'data-goatcounter',
    endpoint: ['data-goatcounter'],
    id: (a) => /^https?:\/\/([\w-]+)\.goatcounter\.com\//.exec(a['data-goatcounter'])?.[1] ?? null,
  },
  { key: 'pirsch', marker: 'data-code', src: /pirsch(-extended)?(\.min)?\.js$|pirsch\.io\// },
  { key: 'counter_dev', marker: 'data-id', src: /counter\.dev\/script\.js$/ },
  {
    key: 'cloudflare_web_analytics',
    marker: 'data-cf-beacon',
    id: (a) => /"token"\s*:\s*"([0-9a-f]{32})"/.exec(a['data-cf-beacon'])?.[1] ?? null,
  },
  {
    key: 'ackee',
    marker: 'data-ackee-domain-id',
    endpoint: ['data-ackee-server'],
  },
];

export function matchScriptAttributes(src: string | null, attributes: Record<string, string>): AttributeMatch[] {
  const out: AttributeMatch[] = [];
  for (const rule of RULES) {
    const value = attributes[rule.marker];
    if (!value || (rule.src && !(src && rule.src.test(src)))) continue;
    const endpointAttribute = rule.endpoint?.find((name) => /^https?:\/\//.test(attributes[name] ?? ''));
    out.push({
      key: rule.key,
      id: rule.id ? rule.id(attributes) : value.slice(0, 200),
      detail: `<script ${rule.marker}="${value.slice(0, 100)}">`,
      endpoint: endpointAttribute ? attributes[endpointAttribute] : null,
    });
  }
  return out;
}
