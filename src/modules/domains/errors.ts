import { defineErrors, notFound } from '../../lib/errors.js';

export const DomainErrors = {
  notFound: (id: string) => notFound('domain', id),
  ...defineErrors({
    invalidHostname: {
      status: 400,
      code: 'invalid_hostname',
      message: (why: string) => why,
      extra: { param: 'hostname' },
      example: ["'track' is not a valid hostname (e.g. data.shop.example)."],
    },
    reservedHostname: {
      status: 400,
      code: 'reserved_hostname',
      message: 'Hostnames under the gateway domain are assigned by Tagport.',
      extra: { param: 'hostname' },
    },
    hostnameTaken: {
      status: 409,
      code: 'hostname_taken',
      message: (hostname: string) => `${hostname} is already attached to one of your containers.`,
      example: ['data.shop.example'],
    },
  }),
};
