import {
  type CodesOf,
  errorCode,
  HttpCodes,
  notFound,
  outboundUrlRefused,
  transitionNotAllowed,
} from '../../http/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';
import type { ContainerAction } from './schemas.js';

export const ContainerCodes = {
  invalidConfig: errorCode(400, 'invalid_config', {
    message: 'config does not decode to id=GTM-…&env=…&auth=….',
    param: 'config',
  }),
  upstreamNotAllowed: errorCode(400, 'upstream_not_allowed', {
    message: 'upstream_url refused: URLs must not contain credentials.',
    param: 'upstream_url',
  }),
  containerDeleted: errorCode(409, 'container_deleted', {
    message: 'A deleted container cannot be changed.',
    details: { status: 'deleted' },
  }),
  upstreamRequired: errorCode(400, 'upstream_required', {
    message: 'runtime upstream needs an upstream_url (your tagging server).',
    param: 'upstream_url',
  }),
  invalidLoaderPath: errorCode(400, 'invalid_loader_path', {
    message: 'loader_path must not contain gtm, gtag, analytics or collect: ad blockers list those.',
    param: 'settings.loader_path',
  }),
} as const;

export type ContainerErrorCode = CodesOf<typeof ContainerCodes>;

export const ContainerErrors = {
  notFound: (id: string) => notFound('container', id),
  invalidConfig: (why: string) => ContainerCodes.invalidConfig.error(why, { param: 'config' }),
  upstreamRefused: (refusal: OutboundRefusedError) =>
    outboundUrlRefused(refusal, 'upstream_url', 'upstream_url', ContainerCodes.upstreamNotAllowed),
  notChangeable: (status: string) =>
    ContainerCodes.containerDeleted.error(`A ${status} container cannot be changed.`, { details: { status } }),
  beingDeleted: () => ContainerCodes.containerDeleted.error('The container is being deleted.'),
  transitionNotAllowed: (action: ContainerAction, status: string, allowed: ContainerAction[]) =>
    transitionNotAllowed(action, 'a container', status, allowed),
  upstreamRequired: () =>
    ContainerCodes.upstreamRequired.error('runtime upstream needs an upstream_url (your tagging server).', {
      param: 'upstream_url',
    }),
  invalidLoaderPath: (why: string) => ContainerCodes.invalidLoaderPath.error(why, { param: 'settings.loader_path' }),
  periodReversed: () => HttpCodes.periodReversed.error('from must not be after to.', { param: 'from' }),
  periodTooLong: () => HttpCodes.periodTooLong.error('At most 366 days at a time.', { param: 'to' }),
};
