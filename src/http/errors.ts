export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'quota_error'
  | 'api_error';

export interface ApiErrorExtra {
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** An error that becomes the project's error body: {error: {type, code, message, param?, details?}, api_meta}. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (code: string, message: string, param?: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'invalid_request_error', code, message, { param, details });

export const notFound = (resource: string, id?: string) =>
  new ApiError(404, 'not_found_error', 'resource_missing', id ? `No ${resource} with id '${id}'.` : `No such ${resource}.`, {
    param: id ? 'id' : undefined,
  });

export const forbidden = (code: string, message: string) => new ApiError(403, 'permission_error', code, message);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(409, 'conflict_error', code, message, { details });

export const unauthenticated = (code: string, message: string) =>
  new ApiError(401, 'authentication_error', code, message, { headers: { 'www-authenticate': 'Bearer realm="tagport"' } });

/** The one answer for every plan limit (containers, monitors, client tenants). */
export const planLimitReached = (things: string, limit: number, remedy = 'delete one or upgrade') =>
  new ApiError(402, 'quota_error', 'plan_limit_reached', `Your plan allows ${limit} ${things}; ${remedy}.`, { details: { limit } });
