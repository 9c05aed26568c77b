import fc, { type Arbitrary } from 'fast-check';
import { blockedAddressReason } from '../../src/scanner/index.js';

/** A JSON Schema as found in the OpenAPI document (draft 2020-12 subset that TypeBox and fastify-swagger emit). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** Real object ids by prefix (`ctr`, `mon`, …), so generated path parameters and references hit existing objects. */
export type IdPool = () => Map<string, string[]>;

/**
 * Hosts the app may be asked to reach: reserved names that never resolve (RFC 2606/6761) and addresses the SSRF
 * guard refuses. Nothing generated here can make the app connect anywhere.
 */
const unreachableHost = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}\.(invalid|test)$/),
  fc.constantFrom(
    'localhost',
    '127.0.0.1',
    '10.0.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[fd00::1]',
    '0.0.0.0',
    '100.64.0.1',
  ),
);

export const unreachableUrl: Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('https', 'https', 'http', 'ftp', 'file', 'javascript', 'wss'),
    unreachableHost,
    fc.option(fc.integer({ min: 1, max: 65535 })),
    fc.webPath(),
    fc.boolean(),
  )
  .map(
    ([scheme, host, port, path, credentials]) =>
      `${scheme}://${credentials ? 'user:pw@' : ''}${host}${port ? `:${port}` : ''}${path || '/'}`,
  );

export const hostileString: Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a\u0000b',
    '\u0000',
    '\u0007bell',
    'del\u007f',
    'line\nbreak',
    '\ud800',
    '\udfff\ud800',
    '\u202eevil',
    '😀'.repeat(20),
    'Ω≈ç√∫˜µ≤≥÷',
    '<script>alert(1)</script>',
    "' or 1=1 --",
    '"; drop table tenants; --',
    '../../etc/passwd',
    '%00',
    '%ZZ',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile input, meant literally
    '${jndi:ldap://x.invalid/a}',
    'null',
    'true',
    '-1',
    '1e309',
    '9'.repeat(40),
    'ten_00000000000000000000000000',
    '__proto__',
    'constructor',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 201, max: 3000 }).map((length) => 'x'.repeat(length)),
  fc.constant('y'.repeat(70_000)),
);

/** Values of the wrong kind for any field. */
export const hostileValue: Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2, -1, 0, true, false, null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.integer({ min: 50, max: 2000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
);

const ID_PREFIX = /^\^([a-z]+)_/;

/**
 * `^[class]{m,n}$` or `^[class]+$` (digits, a token's alphabet): derived, since random strings filtered by it
 * almost never pass (a 20-character token of 66 characters: one in a few thousand).
 */
const CHARACTER_CLASS = /^\^(\[[^\]]+\])(?:\{(\d+),(\d+)\}|\+)\$$/;

/** Property names whose strings the app fetches or resolves: only unreachable URLs and reserved hostnames for them. */
const URL_FIELDS = new Set(['url', 'upstream_url']);
const HOST_FIELDS = new Set(['hostname']);

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

/** A container's `config`: GTM's base64 of `id=GTM-…&env=…&auth=…`, valid or nearly so. */
const containerConfig = fc
  .tuple(
    fc.stringMatching(/^GTM-[A-Z0-9]{4,8}$/),
    fc.integer({ min: 1, max: 9 }),
    fc.stringMatching(/^[A-Za-z0-9_-]{8,22}$/),
  )
  .map(([id, env, auth]) => Buffer.from(`id=${id}&env=${env}&auth=${auth}`).toString('base64'));

function stringFor(schema: JsonSchema, name: string | undefined, ids: IdPool): Arbitrary<string> {
  if (name === 'config') return fc.oneof(containerConfig, fc.string({ minLength: 8, maxLength: 60 }));
  if (name && URL_FIELDS.has(name)) return unreachableUrl;
  if (name && HOST_FIELDS.has(name)) return unreachableHost.map((host) => host.replace(/^\[|\]$/g, ''));
  const prefix = schema.pattern ? ID_PREFIX.exec(schema.pattern)?.[1] : undefined;
  if (prefix) {
    const pattern = fc.stringMatching(new RegExp(schema.pattern!));
    return fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: pattern, weight: 1 }).chain((pick) => {
      const known = ids().get(prefix) ?? [];
      return pick === null && known.length ? fc.constantFrom(...known) : pattern;
    });
  }
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString());
  if (schema.format === 'date')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10));
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri') return unreachableUrl;
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 30, 30));
  const characterClass = schema.pattern ? CHARACTER_CLASS.exec(schema.pattern) : null;
  if (characterClass) {
    const min = Math.max(minLength, Number(characterClass[2] ?? 1));
    const max = Math.max(min, Math.min(maxLength, Number(characterClass[3] ?? maxLength)));
    return fc.stringMatching(new RegExp(`^${characterClass[1]}{${min},${max}}$`));
  }
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    // Generated from the pattern: random strings filtered by a pattern such as ^G-[A-Z0-9]{4,15}$ almost never match,
    // and the filter spends minutes retrying. Loose patterns (\S) still come from plain strings.
    if (/^\^.*\$$/.test(schema.pattern)) {
      const longest = schema.maxLength ?? Number.POSITIVE_INFINITY;
      return fc.stringMatching(pattern).filter((value) => value.length >= minLength && value.length <= longest);
    }
    return fc.string({ minLength, maxLength }).filter((value) => pattern.test(value));
  }
  return fc.string({ minLength, maxLength });
}

/** Values that satisfy the schema (as far as a generator can: patterns of free text are filtered, not derived). */
export function arbitraryFor(schema: JsonSchema, ids: IdPool, name?: string, depth = 0): Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((branch) => arbitraryFor(branch, ids, name, depth)));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryFor({ ...schema, type }, ids, name, depth)));
  switch (types[0]) {
    case 'string':
      return stringFor(schema, name, ids);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -1_000_000),
        max: Math.min(schema.maximum ?? 1_000_000, 1_000_000),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(arbitraryFor(schema.items ?? {}, ids, name, depth + 1), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, 4)),
      });
    }
    case 'object':
      return objectOf(schema, ids, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(schema: JsonSchema, ids: IdPool, depth: number): Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, child]) => [key, arbitraryFor(child, ids, key, depth + 1)]),
  );
  const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
  if (typeof schema.additionalProperties === 'object' && depth < 3) {
    const extra = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 20 }),
      arbitraryFor(schema.additionalProperties, ids, undefined, depth + 1),
      { maxKeys: 3 },
    );
    return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
  }
  return record;
}

/** Every path to a value inside a JSON value, for mutations. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (!value || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

function setAt(root: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (!path.length) return replacement;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  copy[path[0]] = setAt(copy[path[0]], path.slice(1), replacement);
  return copy;
}

function deleteAt(root: unknown, path: Array<string | number>): unknown {
  if (path.length === 0 || !root || typeof root !== 'object') return root;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  if (path.length === 1) {
    if (Array.isArray(copy)) copy.splice(Number(path[0]), 1);
    else delete copy[path[0]];
    return copy;
  }
  copy[path[0]] = deleteAt(copy[path[0]], path.slice(1));
  return copy;
}

/** A documented example with its ids replaced by real ones of the same kind (`ctr_…` → a seeded container). */
export function exampleOf(examples: unknown[], ids: IdPool): Arbitrary<unknown> {
  const withRealIds = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const prefix = /^([a-z]+)_[0-9a-z]{26}$/.exec(value)?.[1];
      const known = prefix ? ids().get(prefix) : undefined;
      return known?.length ? known[0] : value;
    }
    if (Array.isArray(value)) return value.map(withRealIds);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withRealIds(child)]));
    return value;
  };
  return fc.constantFrom(...examples).map(withRealIds);
}

/** A schema-shaped value with one thing wrong: a field of the wrong kind, an extra field, or a field missing. */
export function mutationOf(shaped: Arbitrary<unknown>): Arbitrary<unknown> {
  return fc
    .tuple(
      shaped,
      fc.constantFrom('replace', 'replace', 'extra', 'delete'),
      hostileValue,
      fc.nat(),
      fc.string({ minLength: 1, maxLength: 12 }),
    )
    .map(([value, kind, hostile, pick, extraKey]) => {
      const paths = pathsOf(value);
      const path = paths[pick % paths.length];
      if (kind === 'replace') return setAt(value, path, hostile);
      if (kind === 'delete') return deleteAt(value, path);
      const objects = paths.filter((candidate) => {
        const target = candidate.reduce<any>((node, key) => node?.[key], value);
        return target && typeof target === 'object' && !Array.isArray(target);
      });
      if (!objects.length) return value;
      const at = objects[pick % objects.length];
      return setAt(value, [...at, extraKey], hostile);
    });
}

/**
 * Safety net: any string in the request that parses as a URL with a host the app could reach is replaced.
 * Generated values can only come from the arbitraries above, but a URL built by chance must still never leave the machine.
 */
export function withoutReachableUrls(value: unknown): unknown {
  if (typeof value === 'string') return isReachableUrl(value) ? 'https://replaced.invalid/' : value;
  if (Array.isArray(value)) return value.map(withoutReachableUrls);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withoutReachableUrls(child)]));
  return value;
}

function isReachableUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return false;
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (!host) return false;
  if (/\.(invalid|test|localhost)$/.test(host) || host === 'localhost') return false;
  if (/^[\d.]+$/.test(host) || host.includes(':')) return blockedAddressReason(host) === null;
  return true;
}
