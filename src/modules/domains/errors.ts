import { type CodesOf, errorCode, notFound } from '../../lib/errors.js';

export const DomainCodes = {
  invalidHostname: errorCode(400, 'invalid_hostname', {
    message: "'track' is not a valid hostname (e.g. data.shop.example).",
    param: 'hostname',
  }),
  reservedHostname: errorCode(400, 'reserved_hostname', {
    message: 'Hostnames under the gateway domain are assigned by Tagport.',
    param: 'hostname',
  }),
  hostnameTaken: errorCode(409, 'hostname_taken', {
    message: 'data.shop.example is already attached to one of your containers.',
  }),
} as const;

export type DomainErrorCode = CodesOf<typeof DomainCodes>;

export const DomainErrors = {
  notFound: (id: string) => notFound('domain', id),
  invalidHostname: (why: string) => DomainCodes.invalidHostname.error(why, { param: 'hostname' }),
  reservedHostname: () =>
    DomainCodes.reservedHostname.error('Hostnames under the gateway domain are assigned by Tagport.', {
      param: 'hostname',
    }),
  hostnameTaken: (hostname: string) =>
    DomainCodes.hostnameTaken.error(`${hostname} is already attached to one of your containers.`),
};
