import { notFound } from '../../http/errors.js';

export const EventErrors = {
  notFound: (id: string) => notFound('event', id),
};
