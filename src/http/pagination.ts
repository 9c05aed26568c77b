import type { FastifyRequest } from 'fastify';
import { countReachedLimit } from '../lib/count-bound.js';
import { type ListWindow, UnknownCursorError } from '../lib/list-window.js';
import { HttpCodes } from './errors.js';

export interface ListQuery {
  page?: number;
  page_size?: number;
  starting_after?: string;
  ending_before?: string;
}

type CursorParam = 'starting_after' | 'ending_before';
const CURSOR_PARAMS = { after: 'starting_after', before: 'ending_before' } as const;

/**
 * The window a list request asks for. `page` has a default, so whether the client sent it is read from the URL:
 * a cursor with an explicit `page`, or both cursors, is a 400 rather than a guess at what was meant.
 */
export function listWindow(request: FastifyRequest & { query: ListQuery }): ListWindow {
  const { query } = request;
  const pageSize = query.page_size ?? 20;
  if (query.starting_after !== undefined && query.ending_before !== undefined)
    throw HttpCodes.conflictingPagination.error('Send starting_after or ending_before, not both.', {
      param: 'ending_before',
    });
  const cursor = query.starting_after ?? query.ending_before;
  if (cursor === undefined) {
    const page = query.page ?? 1;
    return { kind: 'offset', limit: pageSize, offset: (page - 1) * pageSize };
  }
  const param: CursorParam = query.starting_after !== undefined ? 'starting_after' : 'ending_before';
  if (new URL(request.url, 'http://localhost').searchParams.has('page'))
    throw HttpCodes.conflictingPagination.error(`Send page or ${param}, not both.`, { param: 'page' });
  return { kind: param === 'starting_after' ? 'after' : 'before', cursor, limit: pageSize + 1, offset: 0 };
}

function linkTo(request: FastifyRequest, baseUrl: string, pageSize: number, set: Record<string, string>): string {
  const url = new URL(request.url, baseUrl);
  for (const name of ['page', 'starting_after', 'ending_before']) url.searchParams.delete(name);
  for (const [name, value] of Object.entries(set)) url.searchParams.set(name, value);
  url.searchParams.set('page_size', String(pageSize));
  return url.toString();
}

/** A list's count, and whether it is a lower bound (a bounded count that reached its bound). */
interface Counted {
  count: number;
  estimated: boolean;
}

const baseUrlOf = (request: FastifyRequest) => request.server.config.publicBaseUrl ?? requestOrigin(request);

/**
 * Builds the list envelope {count, page, page_size, total_pages, next, previous, results} of a page by number. A
 * count that reached its bound (src/lib/count-bound.ts) is a lower bound: the envelope then says `count_estimated`.
 */
export function pageEnvelope<T>(
  request: FastifyRequest,
  window: ListWindow & { kind: 'offset' },
  { count, estimated }: Counted,
  results: T[],
) {
  const pageSize = window.limit;
  const page = window.offset / pageSize + 1;
  const totalPages = Math.ceil(count / pageSize);
  const hasNext = page < totalPages;
  const hasPrevious = page > 1;
  const baseUrl = hasNext || hasPrevious ? baseUrlOf(request) : '';
  const pageLink = (number: number) => linkTo(request, baseUrl, pageSize, { page: String(number) });
  return {
    count,
    page,
    page_size: pageSize,
    total_pages: totalPages,
    ...(estimated ? { count_estimated: true as const } : {}),
    next: hasNext ? pageLink(page + 1) : null,
    previous: hasPrevious ? pageLink(Math.min(page - 1, Math.max(totalPages, 1))) : null,
    results,
  };
}

/**
 * The envelope of a page read by cursor. `count` and `total_pages` describe the whole list (bounded as on page 1),
 * `page` is null (a position would cost counting every row before it), and `next`/`previous` are cursor links from
 * the page's last and first objects. The window read one row beyond the page, on the side it walked towards: that
 * row only says whether that side goes on.
 */
export function cursorEnvelope<T>(
  request: FastifyRequest,
  window: ListWindow & { kind: 'after' | 'before' },
  { count, estimated }: Counted,
  rows: T[],
  cursorOf: (item: T) => string,
) {
  const pageSize = window.limit - 1;
  const more = rows.length > pageSize;
  const results = window.kind === 'after' ? rows.slice(0, pageSize) : rows.slice(rows.length - pageSize);
  // Walking one way from an object of the list, the other way holds at least that object.
  const hasNext = results.length > 0 && (window.kind === 'before' || more);
  const hasPrevious = results.length > 0 && (window.kind === 'after' || more);
  const baseUrl = hasNext || hasPrevious ? baseUrlOf(request) : '';
  const cursorLink = (kind: keyof typeof CURSOR_PARAMS, item: T) =>
    linkTo(request, baseUrl, pageSize, { [CURSOR_PARAMS[kind]]: cursorOf(item) });
  return {
    count,
    page: null,
    page_size: pageSize,
    total_pages: Math.ceil(count / pageSize),
    ...(estimated ? { count_estimated: true as const } : {}),
    next: hasNext ? cursorLink('after', results[results.length - 1]) : null,
    previous: hasPrevious ? cursorLink('before', results[0]) : null,
    results,
  };
}

/** The origin the client used, for absolute links when PUBLIC_BASE_URL is unset. */
export function requestOrigin(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return 'http://localhost';
  }
}

/**
 * A list route's answer: reads `page`/`page_size` or a cursor (`starting_after`/`ending_before`), loads that window,
 * and wraps it in the list envelope. `cursorOf` names the id clients page by (`id` unless told otherwise).
 */
export async function listPage<T>(
  request: FastifyRequest & { query: ListQuery },
  load: (window: ListWindow) => Promise<{ results: T[]; total: number; exact?: boolean }>,
  cursorOf: (item: T) => string = (item) => (item as { id: string }).id,
) {
  const window = listWindow(request);
  try {
    const { results, total, exact = false } = await load(window);
    const counted = { count: total, estimated: !exact && countReachedLimit(total, window.limit, window.offset) };
    return window.kind === 'offset'
      ? pageEnvelope(request, window, counted, results)
      : cursorEnvelope(request, window, counted, results, cursorOf);
  } catch (error) {
    if (!(error instanceof UnknownCursorError)) throw error;
    throw HttpCodes.invalidCursor.error(
      `${CURSOR_PARAMS[error.window.kind]} is not the id of an object in this list.`,
      { param: CURSOR_PARAMS[error.window.kind] },
    );
  }
}
