import { notFound } from '../../lib/errors.js';

export const EventErrors = {
  notFound: (id: string) => notFound('event', id),
};
