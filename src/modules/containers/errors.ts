import {
  type CodesOf,
  errorCode,
  CommonCodes,
  notFound,
  outboundUrlRefused,
  planLimitReached,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  transitionNotAllowed,
} from '../../lib/errors.js';
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
  runtimeUnavailable: errorCode(400, 'runtime_unavailable', {
    message:
      "runtime sgtm is not enabled on this instance: its operator must set SGTM_COMMAND (Google's tagging server program) or SGTM_DRIVER=kubernetes.",
    param: 'runtime',
  }),
  invalidReplicas: errorCode(400, 'invalid_replicas', {
    message: 'settings.tagging_server.min_replicas (3) must not be above max_replicas (2).',
    param: 'settings.tagging_server.min_replicas',
  }),
  orchestratorUnavailable: errorCode(503, 'orchestrator_unavailable', {
    message: "The tagging servers' orchestrator cannot be reached; retry in 5 seconds.",
  }),
  invalidLoaderPath: errorCode(400, 'invalid_loader_path', {
    message: 'loader_path must not contain gtm, gtag, analytics or collect: ad blockers list those.',
    param: 'settings.loader_path',
  }),
  invalidFilePath: errorCode(400, 'invalid_file_path', {
    message:
      'settings.file_proxy.files[0].path /healthz is the container health check, answered by the gateway itself.',
    param: 'settings.file_proxy.files[0].path',
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
  runtimeUnavailable: (why: string) => ContainerCodes.runtimeUnavailable.error(why, { param: 'runtime' }),
  invalidReplicas: (min: number, max: number) =>
    ContainerCodes.invalidReplicas.error(
      `settings.tagging_server.min_replicas (${min}) must not be above max_replicas (${max}).`,
      { param: 'settings.tagging_server.min_replicas' },
    ),
  replicaLimit: (limit: number) =>
    planLimitReached('tagging replicas per container', limit, 'lower settings.tagging_server.max_replicas or upgrade'),
  orchestratorUnavailable: (cause: unknown) =>
    ContainerCodes.orchestratorUnavailable.error(
      `The tagging servers' orchestrator cannot be reached; retry in ${RETRY_AFTER_UNAVAILABLE_SECONDS} seconds.`,
      { headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) }, cause },
    ),
  invalidLoaderPath: (why: string) => ContainerCodes.invalidLoaderPath.error(why, { param: 'settings.loader_path' }),
  invalidFilePath: ({ param, message }: { param: string; message: string }) =>
    ContainerCodes.invalidFilePath.error(message, { param }),
  periodReversed: () => CommonCodes.periodReversed.error('from must not be after to.', { param: 'from' }),
  periodTooLong: () => CommonCodes.periodTooLong.error('At most 366 days at a time.', { param: 'to' }),
};
