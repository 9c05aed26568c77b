import type { FastifyRequest } from 'fastify';
import { countReachedLimit } from '../lib/count-bound.js';

export interface PageParams {
  page: number;
  pageSize: number;
  offset: number;
}

export function pageParams(query: { page?: number; page_size?: number }): PageParams {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 20;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

function pageUrl(request: FastifyRequest, baseUrl: string, page: number, pageSize: number): string {
  const url = new URL(request.url, baseUrl);
  url.searchParams.set('page', String(page));
  url.searchParams.set('page_size', String(pageSize));
  return url.toString();
}

/**
 * Builds the list envelope {count, page, page_size, total_pages, next, previous, results}. A count that reached its
 * bound (src/lib/count-bound.ts) is a lower bound: the envelope then says `count_estimated: true`.
 */
export function pageEnvelope<T>(request: FastifyRequest, params: PageParams, count: number, results: T[]) {
  const estimated = countReachedLimit(count, params.pageSize, params.offset);
  const totalPages = Math.ceil(count / params.pageSize);
  const hasNext = params.page < totalPages;
  const hasPrevious = params.page > 1;
  const baseUrl = hasNext || hasPrevious ? (request.server.config.publicBaseUrl ?? requestOrigin(request)) : '';
  return {
    count,
    page: params.page,
    page_size: params.pageSize,
    total_pages: totalPages,
    ...(estimated ? { count_estimated: true as const } : {}),
    next: hasNext ? pageUrl(request, baseUrl, params.page + 1, params.pageSize) : null,
    previous: hasPrevious
      ? pageUrl(request, baseUrl, Math.min(params.page - 1, Math.max(totalPages, 1)), params.pageSize)
      : null,
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

/** A list route's answer: reads `page`/`page_size`, loads that slice, and wraps it in the list envelope. */
export async function listPage<T>(
  request: FastifyRequest & { query: { page?: number; page_size?: number } },
  load: (limit: number, offset: number) => Promise<{ results: T[]; total: number }>,
) {
  const params = pageParams(request.query);
  const { results, total } = await load(params.pageSize, params.offset);
  return pageEnvelope(request, params, total, results);
}
