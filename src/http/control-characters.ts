import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiError, HttpCodes } from './errors.js';

/**
 * C0 control characters and DEL are refused in every string a client sends, before validation: PostgreSQL
 * cannot store NUL in text or jsonb, and none of them belongs in a name, URL, id or filter. Tab, line feed
 * and carriage return stay allowed in JSON bodies, where a multi-line text can make sense; path and query
 * parameters are single-line.
 */
const IN_BODY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const IN_URL = /[\u0000-\u001F\u007F]/;

const WHERE = { params: 'path parameter', querystring: 'query parameter', body: 'field' } as const;
type Location = keyof typeof WHERE;

const escapeMatches = (text: string, pattern: RegExp) =>
  text.replace(
    new RegExp(pattern.source, 'g'),
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * Finds the first string (value or object key) with a control character. Iterative, so a deeply nested
 * body cannot overflow the stack. Returns the dotted path of the field and the offending character.
 */
function findControlCharacter(root: unknown, pattern: RegExp): { path: string; character: string } | null {
  const pending: Array<[unknown, string]> = [[root, '']];
  while (pending.length) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      const match = pattern.exec(value);
      if (match) return { path, character: match[0] };
    } else if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const keyMatch = pattern.exec(key);
        const name = keyMatch ? escapeMatches(key, pattern) : key;
        const childPath = path ? `${path}.${name}` : name;
        if (keyMatch) return { path: childPath, character: keyMatch[0] };
        pending.push([child, childPath]);
      }
    }
  }
  return null;
}

function refusal(location: Location, found: { path: string; character: string }): ApiError {
  const code = `U+${found.character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const where = found.path ? `The ${WHERE[location]} '${found.path}'` : 'The request body';
  return HttpCodes.invalidCharacter.error(`${where} contains the control character ${code}, which is not allowed.`, {
    param: found.path || undefined,
    details: { location, character: code },
  });
}

function check(request: FastifyRequest): ApiError | null {
  const inParams = findControlCharacter(request.params, IN_URL);
  if (inParams) return refusal('params', inParams);
  const inQuery = findControlCharacter(request.query, IN_URL);
  if (inQuery) return refusal('querystring', inQuery);
  const inBody = findControlCharacter(request.body, IN_BODY);
  return inBody ? refusal('body', inBody) : null;
}

export function registerControlCharacterCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    done(check(request) ?? undefined);
  });
}
