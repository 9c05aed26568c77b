import { type CodesOf, errorCode, notFound } from '../../lib/errors.js';

export const ApiKeyCodes = {
  invalidExpiry: errorCode(400, 'invalid_expiry', {
    message: 'expires_at must be a date-time in the future.',
    param: 'expires_at',
  }),
  tooManyApiKeys: errorCode(403, 'too_many_api_keys', {
    message: 'A tenant can have at most 100 unrevoked API keys; revoke unused ones.',
  }),
} as const;

export type ApiKeyErrorCode = CodesOf<typeof ApiKeyCodes>;

export const ApiKeyErrors = {
  notFound: (id: string) => notFound('API key', id),
  expiryNotInFuture: () =>
    ApiKeyCodes.invalidExpiry.error('expires_at must be a date-time in the future.', { param: 'expires_at' }),
  tooManyApiKeys: (max: number) =>
    ApiKeyCodes.tooManyApiKeys.error(`A tenant can have at most ${max} unrevoked API keys; revoke unused ones.`),
};
