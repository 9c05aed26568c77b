import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { isDatabaseUnavailable } from '../db/errors.js';
import { newId } from '../lib/ids.js';
import { errorPage, notFoundPage } from '../web/html.js';
import { registerControlCharacterCheck } from './control-characters.js';
import { ApiError, type ErrorCodeDefinition, HttpCodes, serviceUnavailable, type ErrorType } from './errors.js';
import { isPage } from './guard.js';

/**
 * Conventions every response follows, written once: api_meta.request_id in every JSON object body
 * (X-Request-Id is set by the request guard), the error body for every failure, and 405 with Allow for
 * known paths with another method.
 */
export function registerConventions(app: FastifyInstance): void {
  app.addHook('preSerialization', (request, _reply, payload: unknown, done) => {
    if (payload && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
      return done(null, { ...(payload as object), api_meta: { request_id: request.id } });
    }
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, toApiError(error, request)));
  registerControlCharacterCheck(app);

  const knownPaths = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  const allowedMethods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      let methods = allowedMethods.get(route.url);
      if (!methods) {
        methods = new Set();
        allowedMethods.set(route.url, methods);
        knownPaths.on('GET', route.url, () => {}, { pattern: route.url });
      }
      methods.add(method);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const match = knownPaths.find('GET' as HTTPMethod, path);
    const pattern = (match?.store as { pattern?: string } | undefined)?.pattern;
    const methods = pattern ? allowedMethods.get(pattern) : undefined;
    if (methods && !methods.has(request.method)) {
      const allow = [...methods].sort().join(', ');
      reply.header('allow', allow);
      return sendError(
        request,
        reply,
        HttpCodes.methodNotAllowed.error(`${request.method} is not allowed on ${path}; allowed: ${allow}.`),
      );
    }
    if (wantsHtml(request, path)) return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage(path));
    return sendError(request, reply, HttpCodes.routeNotFound.error(`No route ${request.method} ${path}.`));
  });
}

/** A browser asking for a page (not the API) gets its errors as HTML; the API and every other client get JSON. */
const wantsHtml = (request: FastifyRequest, path: string) =>
  request.method === 'GET' && isPage(path) && (request.headers.accept ?? '').includes('text/html');

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
  if (wantsHtml(request, request.url.split('?')[0])) {
    const retryAfter = error.extra.headers?.['retry-after'];
    return reply
      .code(error.statusCode)
      .type('text/html; charset=utf-8')
      .send(errorPage(error.statusCode, error.message, request.id, retryAfter ? Number(retryAfter) : undefined));
  }
  const body: { type: ErrorType; code: string; message: string; param?: string; details?: Record<string, unknown> } = {
    type: error.type,
    code: error.code,
    message: error.message,
  };
  if (error.extra.param) body.param = error.extra.param;
  if (error.extra.details) body.details = error.extra.details;
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send({ error: body, api_meta: { request_id: request.id } });
}

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function validationParam(issue: ValidationIssue): string | undefined {
  const path = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const child = (issue.params.missingProperty ?? issue.params.additionalProperty) as string | undefined;
  return [path, child].filter(Boolean).join('.') || undefined;
}

const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  uri: 'an absolute URL',
  'date-time': 'a date and time such as 2026-11-23T10:00:00Z',
  date: 'a date such as 2026-11-23',
  hostname: 'a hostname',
};

/** Every issue of a request part, one per parameter (the first), for forms that mark each wrong field. */
function validationIssues(issues: ValidationIssue[], context: string) {
  const seen = new Map<string, { param: string | null; message: string }>();
  for (const issue of issues) {
    if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf' || issue.keyword === 'if') continue;
    const param = validationParam(issue) ?? null;
    if (!seen.has(param ?? ''))
      seen.set(param ?? '', { param, message: validationMessage(issue, context, param ?? undefined) });
  }
  return [...seen.values()].slice(0, 20);
}

function validationMessage(issue: ValidationIssue, context: string, param: string | undefined): string {
  const where =
    context === 'querystring'
      ? 'query parameter'
      : context === 'params'
        ? 'path parameter'
        : context === 'headers'
          ? 'header'
          : 'field';
  // An issue with the whole body (a JSON array or string where an object belongs) names no parameter.
  const subject = param ? `The ${where} '${param}'` : `The request ${context}`;
  switch (issue.keyword) {
    case 'additionalProperties':
      return `Unknown ${where} '${param}'.`;
    case 'required':
      return `Missing required ${where} '${param}'.`;
    case 'type':
      return `${subject} must be of type ${issue.params.type}.`;
    case 'enum':
      return `${subject} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}.`;
    case 'minLength':
      return issue.params.limit === 1
        ? `${subject} must not be empty.`
        : `${subject} must be at least ${issue.params.limit} characters long.`;
    case 'maxLength':
      return `${subject} must be at most ${issue.params.limit} characters long.`;
    case 'format':
      return `${subject} must be ${FORMAT_NAMES[issue.params.format as string] ?? `in the format ${issue.params.format}`}.`;
    case 'pattern':
      return `${subject} is not in the expected format.`;
    case 'minimum':
      return `${subject} must be at least ${issue.params.limit}.`;
    case 'maximum':
      return `${subject} must be at most ${issue.params.limit}.`;
    case 'minItems':
      return `${subject} must have at least ${issue.params.limit} item${issue.params.limit === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `${subject} must have at most ${issue.params.limit} items.`;
    default:
      return `${subject} ${issue.message}.`;
  }
}

/**
 * Fastify's `frameworkErrors`: a URL that cannot be decoded or a path parameter over the router's limit is
 * refused before routing (so before the request guard), and answered in the same envelope as every error.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  return sendError(request, reply, toApiError(error, request));
}

const CLIENT_ERRORS: Record<string, [ErrorCodeDefinition, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [HttpCodes.requestTimeout, 'The request was not received in time.'],
  HPE_HEADER_OVERFLOW: [HttpCodes.headersTooLarge, 'The request headers are too large.'],
};

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request (a malformed request line or
 * header, headers too large, a timeout), so there is no request object; the error body is written to the
 * socket directly, with a request id of its own.
 */
export function handleClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [{ status, type, code }, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    HttpCodes.malformedRequest,
    'The request is not valid HTTP/1.1 (request line or headers).',
  ];
  const requestId = newId('request');
  this.log.debug({ err: error, reqId: requestId }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({
      error: { type, code, message },
      api_meta: { request_id: requestId },
    });
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

const FASTIFY_ERRORS: Record<string, [ErrorCodeDefinition, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [HttpCodes.unsupportedMediaType, 'Send the request body as application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    HttpCodes.invalidContentLength,
    'The Content-Length header does not match the body.',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [HttpCodes.bodyTooLarge, 'The request body is larger than the limit of 1 MB.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    HttpCodes.emptyBody,
    'The request has Content-Type application/json but an empty body.',
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: [HttpCodes.invalidJson, 'The request body is not valid JSON.'],
  FST_ERR_CTP_INVALID_TYPE: [HttpCodes.unsupportedMediaType, 'The Content-Type header is invalid.'],
  FST_ERR_BAD_URL: [HttpCodes.invalidUrl, 'The request URL is malformed (an invalid percent-encoding).'],
  FST_ERR_INVALID_URL: [HttpCodes.invalidUrl, 'The request URL is malformed.'],
  FST_ERR_MAX_PARAM_LENGTH: [HttpCodes.pathParameterTooLong, 'A path parameter is longer than 200 characters.'],
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: [HttpCodes.unsupportedMediaType, 'Send the request body as application/json.'],
  FST_CSRF_INVALID_TOKEN: [
    HttpCodes.csrfTokenInvalid,
    'Missing or invalid CSRF token: send the token from GET /api/auth/session in the X-CSRF-Token header.',
  ],
  FST_CSRF_MISSING_SECRET: [
    HttpCodes.csrfTokenInvalid,
    'Missing CSRF secret cookie: fetch GET /api/auth/session first.',
  ],
};

function toApiError(
  error: FastifyError & { validation?: ValidationIssue[]; validationContext?: string },
  request: FastifyRequest,
): ApiError {
  if (error instanceof ApiError) {
    if (error.extra.cause !== undefined)
      request.log.warn({ err: error.extra.cause, code: error.code }, 'request failed');
    return error;
  }
  if (error.validation?.length) {
    const issue = error.validation[0];
    const context = error.validationContext ?? 'body';
    const param = validationParam(issue);
    const definition =
      issue.keyword === 'additionalProperties' ? HttpCodes.unknownParameter : HttpCodes.invalidParameter;
    return definition.error(validationMessage(issue, context, param), {
      param,
      details: {
        location: context,
        ...(issue.keyword === 'enum' ? { allowed_values: issue.params.allowedValues } : {}),
        ...(error.validation.length > 1 ? { errors: validationIssues(error.validation, context) } : {}),
      },
    });
  }
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return known[0].error(known[1]);
  if (error instanceof SyntaxError || (error as { type?: string }).type === 'entity.parse.failed') {
    return HttpCodes.invalidJson.error('The request body is not valid JSON.');
  }
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return serviceUnavailable();
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // A library's own 4xx: its text may name internals, so the client gets a plain message.
    request.log.info({ err: error }, 'request refused by a library');
    return new ApiError(
      error.statusCode,
      HttpCodes.badRequest.type,
      HttpCodes.badRequest.code,
      'The request could not be processed; check its method, headers and body.',
    );
  }
  request.log.error({ err: error }, 'unhandled error');
  return HttpCodes.internalError.error('An unexpected error occurred. Quote the request id if you contact us.');
}
