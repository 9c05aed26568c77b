import { type CodesOf, errorCode, notFound } from '../../lib/errors.js';

export const MetaPixelCodes = {
  metaPixelExists: errorCode(409, 'meta_pixel_exists', {
    message:
      'The container already forwards to pixel 123456789012345; change its access token or test event code there instead.',
    param: 'pixel_id',
  }),
  tooManyMetaPixels: errorCode(409, 'too_many_meta_pixels', {
    message: 'A container can forward to at most 10 Meta pixels; delete one first.',
  }),
  secretsKeyMissing: errorCode(503, 'secrets_key_missing', {
    message: 'This server cannot store Meta access tokens: they are kept encrypted with SECRETS_KEY, which is not set.',
  }),
} as const;

export type MetaPixelErrorCode = CodesOf<typeof MetaPixelCodes>;

export const MetaPixelErrors = {
  containerNotFound: (id: string) => notFound('container', id),
  notFound: (id: string) => notFound('Meta pixel', id),
  exists: (pixelId: string) =>
    MetaPixelCodes.metaPixelExists.error(
      `The container already forwards to pixel ${pixelId}; change its access token or test event code there instead.`,
      { param: 'pixel_id' },
    ),
  tooMany: (max: number) =>
    MetaPixelCodes.tooManyMetaPixels.error(`A container can forward to at most ${max} Meta pixels; delete one first.`),
  secretsKeyMissing: () =>
    MetaPixelCodes.secretsKeyMissing.error(
      'This server cannot store Meta access tokens: they are kept encrypted with SECRETS_KEY, which is not set. ' +
        'The operator must set SECRETS_KEY (32 bytes, for example from `openssl rand -base64 32`) and restart Tagport.',
    ),
};
