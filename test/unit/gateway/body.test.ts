import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyUpTo } from '../../../src/gateway/body.js';

/** A request body stream with these headers, fed the given pieces. */
function requestOf(headers: Record<string, string>, pieces: string[]) {
  const stream = Object.assign(new PassThrough(), { headers });
  for (const piece of pieces) stream.write(piece);
  stream.end();
  return stream as unknown as http.IncomingMessage & PassThrough;
}

describe('readBodyUpTo', () => {
  it('gives a body within the limit whole', async () => {
    expect((await readBodyUpTo(requestOf({}, ['ab', 'cd']), 4))?.toString()).toBe('abcd');
  });

  it('reads a body that turns out too large to its end, then gives null', async () => {
    const req = requestOf({}, ['abc', 'def']);
    expect(await readBodyUpTo(req, 4)).toBeNull();
    expect(req.readableEnded).toBe(true);
  });

  it('gives up on a body far over the limit without reading it all', async () => {
    const req = requestOf({}, ['x'.repeat(1024 * 1024), 'x'.repeat(1024), 'never read']);
    expect(await readBodyUpTo(req, 1024)).toBeNull();
    expect(req.readableEnded).toBe(false);
  });

  it('does not read a body declared too large', async () => {
    const req = requestOf({ 'content-length': '6' }, ['abcdef']);
    expect(await readBodyUpTo(req, 4)).toBeNull();
    expect(req.readableEnded).toBe(false);
  });
});
