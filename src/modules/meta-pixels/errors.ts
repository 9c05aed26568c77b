import { defineErrors, notFound } from '../../lib/errors.js';

export const MetaPixelErrors = {
  containerNotFound: (id: string) => notFound('container', id),
  notFound: (id: string) => notFound('Meta pixel', id),
  ...defineErrors({
    exists: {
      status: 409,
      code: 'meta_pixel_exists',
      message: (pixelId: string) =>
        `The container already forwards to pixel ${pixelId}; change its access token or test event code there instead.`,
      extra: { param: 'pixel_id' },
      example: ['123456789012345'],
    },
    tooMany: {
      status: 409,
      code: 'too_many_meta_pixels',
      message: (max: number) => `A container can forward to at most ${max} Meta pixels; delete one first.`,
      example: [10],
    },
    secretsKeyMissing: {
      status: 503,
      code: 'secrets_key_missing',
      message:
        'This server cannot store Meta access tokens: they are kept encrypted with SECRETS_KEY, which is not set. ' +
        'The operator must set SECRETS_KEY (32 bytes, for example from `openssl rand -base64 32`) and restart Tagport.',
    },
  }),
};
