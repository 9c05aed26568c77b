// The API's types for the browser code, from the client package's generated schema (`npm run client:generate`).
import type { components, paths } from '../../../clients/typescript/src/schema.js';

/** The API's resources by their schema names: `Schemas['Container']`, … */
export type Schemas = components['schemas'];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type Success<Responses> = Json<Responses[200 & keyof Responses]> | Json<Responses[201 & keyof Responses]>;

/** The JSON a successful call answers: `Reply<'/api/api-keys/'>`, `Reply<'/api/reports/', 'post'>`. */
export type Reply<Path extends keyof paths, M extends Method = 'get'> = paths[Path][M] extends {
  responses: infer Responses;
}
  ? Success<Responses>
  : never;
