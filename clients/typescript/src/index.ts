import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };

/** The API's resources by their schema names: `Schemas['Container']`, `Schemas['Error']`, … */
export type Schemas = components['schemas'];

/** The error body every failed request answers with: `{error: {type, code, message, param?, details?}, api_meta}`. */
export type ApiError = Schemas['Error'];

export interface TagportClientOptions {
  /** Where the service runs, e.g. `https://tagport.example.com` (no `/api`: the paths carry it). */
  baseUrl: string;
  /** An API key (`tgp_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Agencies and partners: the client tenant (`ten_…`) every request acts on, sent as `Tagport-Tenant`. */
  tenant?: string;
  /** A fetch of your own (tests, proxies); the global fetch otherwise. */
  fetch?: (input: Request) => Promise<Response>;
}

export type TagportClient = Client<paths>;

/**
 * A client typed from the service's OpenAPI document: paths, parameters, bodies and every answer, errors included.
 *
 * ```ts
 * const tagport = createTagportClient({ baseUrl: 'https://tagport.example.com', apiKey: process.env.TAGPORT_KEY! });
 * const { data, error } = await tagport.POST('/api/containers/', { body: { name: 'Shop', region: 'eu-central', config } });
 * ```
 */
export function createTagportClient({ baseUrl, apiKey, tenant, fetch }: TagportClientOptions): TagportClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${apiKey}`, ...(tenant ? { 'tagport-tenant': tenant } : {}) },
    ...(fetch ? { fetch } : {}),
  });
}
