import {
  CommonCodes,
  defineErrors,
  notFound,
  outboundUrlRefused,
  planLimitReached,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  transitionNotAllowed,
} from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';
import type { ContainerAction } from './schemas.js';

const errors = defineErrors({
  invalidConfig: {
    status: 400,
    code: 'invalid_config',
    message: (why: string) => why,
    extra: { param: 'config' },
    example: ['config does not decode to id=GTM-…&env=…&auth=….'],
  },
  upstreamNotAllowed: {
    status: 400,
    code: 'upstream_not_allowed',
    message: (reason: string) => `upstream_url refused: ${reason}`,
    extra: { param: 'upstream_url' },
    example: ['URLs must not contain credentials.'],
  },
  /** The first of container_deleted: its example is the one documented. */
  notChangeable: {
    status: 409,
    code: 'container_deleted',
    message: (status: string) => `A ${status} container cannot be changed.`,
    extra: (status: string) => ({ details: { status } }),
    example: ['deleted'],
  },
  beingDeleted: { status: 409, code: 'container_deleted', message: 'The container is being deleted.' },
  upstreamRequired: {
    status: 400,
    code: 'upstream_required',
    message: 'runtime upstream needs an upstream_url (your tagging server).',
    extra: { param: 'upstream_url' },
  },
  runtimeUnavailable: {
    status: 400,
    code: 'runtime_unavailable',
    message: (why: string) => why,
    extra: { param: 'runtime' },
    example: [
      "runtime sgtm is not enabled on this instance: its operator must set SGTM_COMMAND (Google's tagging server program) or SGTM_DRIVER=kubernetes.",
    ],
  },
  invalidReplicas: {
    status: 400,
    code: 'invalid_replicas',
    message: (min: number, max: number) =>
      `settings.tagging_server.min_replicas (${min}) must not be above max_replicas (${max}).`,
    extra: { param: 'settings.tagging_server.min_replicas' },
    example: [3, 2],
  },
  orchestratorUnavailable: {
    status: 503,
    code: 'orchestrator_unavailable',
    message: `The tagging servers' orchestrator cannot be reached; retry in ${RETRY_AFTER_UNAVAILABLE_SECONDS} seconds.`,
    extra: (cause: unknown) => ({ headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) }, cause }),
  },
  invalidLoaderPath: {
    status: 400,
    code: 'invalid_loader_path',
    message: (why: string) => why,
    extra: { param: 'settings.loader_path' },
    example: ['loader_path must not contain gtm, gtag, analytics or collect: ad blockers list those.'],
  },
  invalidFilePath: {
    status: 400,
    code: 'invalid_file_path',
    message: ({ message }: { param: string; message: string }) => message,
    extra: ({ param }: { param: string; message: string }) => ({ param }),
    example: [
      {
        param: 'settings.file_proxy.files[0].path',
        message:
          'settings.file_proxy.files[0].path /healthz is the container health check, answered by the gateway itself.',
      },
    ],
  },
});

export const ContainerErrors = {
  ...errors,
  notFound: (id: string) => notFound('container', id),
  upstreamRefused: (refusal: OutboundRefusedError) =>
    refusal.code === 'https_required'
      ? outboundUrlRefused(refusal, 'upstream_url', 'upstream_url')
      : errors.upstreamNotAllowed(refusal.message),
  transitionNotAllowed: (action: ContainerAction, status: string, allowed: ContainerAction[]) =>
    transitionNotAllowed(action, 'a container', status, allowed),
  replicaLimit: (limit: number) =>
    planLimitReached('tagging replicas per container', limit, 'lower settings.tagging_server.max_replicas or upgrade'),
  periodReversed: () => CommonCodes.periodReversed.error('from must not be after to.', { param: 'from' }),
  periodTooLong: () => CommonCodes.periodTooLong.error('At most 366 days at a time.', { param: 'to' }),
};
