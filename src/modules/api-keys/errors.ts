import { defineErrors, notFound } from '../../lib/errors.js';

export const ApiKeyErrors = {
  notFound: (id: string) => notFound('API key', id),
  ...defineErrors({
    expiryNotInFuture: {
      status: 400,
      code: 'invalid_expiry',
      message: 'expires_at must be a date-time in the future.',
      extra: { param: 'expires_at' },
    },
    tooManyApiKeys: {
      status: 403,
      code: 'too_many_api_keys',
      message: (max: number) => `A tenant can have at most ${max} unrevoked API keys; revoke unused ones.`,
      example: [100],
    },
  }),
};
