import { describe, expect, it } from 'vitest';
import { classifyGraphResponse } from '../../../../../src/gateway/runtime/meta/sender.js';

const graphError = (status: number, error: Record<string, unknown>) => ({
  statusCode: status,
  body: JSON.stringify({ error }),
});

describe('classifyGraphResponse', () => {
  it('delivered for 2xx, with events_received and fbtrace_id', () => {
    expect(
      classifyGraphResponse({ statusCode: 200, body: '{"events_received":3,"messages":[],"fbtrace_id":"AbC"}' }),
    ).toEqual({ verdict: 'delivered', httpStatus: 200, eventsReceived: 3, fbtraceId: 'AbC' });
  });

  it.each([500, 502, 503, 429, 408])('retry for HTTP %i', (status) => {
    expect(classifyGraphResponse({ statusCode: status, body: '<html>busy</html>' })).toMatchObject({
      verdict: 'retry',
      httpStatus: status,
      error: { message: `Graph API answered HTTP ${status}`, code: null },
    });
  });

  it.each([
    [{ message: 'limit', type: 'OAuthException', code: 17 }],
    [{ message: 'temp', type: 'OAuthException', code: 1 }],
    [{ message: 'x', type: 'OAuthException', code: 100, is_transient: true }],
  ])('retry for a 400 Graph marks temporary (%j)', (error) => {
    expect(classifyGraphResponse(graphError(400, error)).verdict).toBe('retry');
  });

  it('rejected for other 4xx, with the error kept', () => {
    expect(
      classifyGraphResponse(
        graphError(400, {
          message: 'Invalid parameter',
          type: 'OAuthException',
          code: 100,
          error_subcode: 2804019,
          fbtrace_id: 'T1',
        }),
      ),
    ).toEqual({
      verdict: 'rejected',
      httpStatus: 400,
      error: {
        message: 'Invalid parameter',
        type: 'OAuthException',
        code: 100,
        error_subcode: 2804019,
        fbtrace_id: 'T1',
      },
    });
    expect(classifyGraphResponse({ statusCode: 403, body: '' })).toMatchObject({
      verdict: 'rejected',
      error: { message: 'Graph API answered HTTP 403' },
    });
  });
});
