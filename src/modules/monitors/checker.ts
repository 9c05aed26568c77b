import type { MonitorRow } from '../../db/schema.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';

export type CheckResult = 'up' | 'degraded' | 'down';

export interface CheckOutcome {
  result: CheckResult;
  statusCode: number | null;
  latencyMs: number | null;
  timings: Record<string, number> | null;
  error: string | null;
}

/** `200` matches 200; `2xx` matches 200–299. */
export function statusMatches(code: number, rules: string[]): boolean {
  return rules.some((rule) =>
    rule.endsWith('xx') ? Math.floor(code / 100) === Number(rule[0]) : Number(rule) === code,
  );
}

const KEYWORD_BODY_LIMIT = 100_000;

function keywordProblem(body: string, keyword: string, mode: string): string | null {
  const text = body.slice(0, KEYWORD_BODY_LIMIT);
  if (mode === 'contains') return text.includes(keyword) ? null : `keyword "${keyword}" not found`;
  if (mode === 'not_contains') return text.includes(keyword) ? `keyword "${keyword}" found` : null;
  return new RegExp(keyword, 'u').test(text) ? null : `pattern /${keyword}/ did not match`;
}

/** Runs one check over real HTTP (SSRF-guarded, hard timeout) and judges it. Never throws. */
export async function runCheck(outbound: OutboundClient, monitor: MonitorRow): Promise<CheckOutcome> {
  try {
    const url = await outbound.checkUrl(monitor.url);
    const response = await outbound.send(url, { method: monitor.method, timeoutMs: monitor.timeoutMs });
    const latencyMs = response.timings.total_ms;
    const base = { statusCode: response.statusCode, latencyMs, timings: response.timings };
    if (!statusMatches(response.statusCode, monitor.expectedStatusCodes)) {
      return { ...base, result: 'down', error: `unexpected status ${response.statusCode}` };
    }
    if (monitor.keyword && monitor.keywordMode) {
      const problem = keywordProblem(response.body, monitor.keyword, monitor.keywordMode);
      if (problem) return { ...base, result: 'down', error: problem };
    }
    const degraded = monitor.degradedAfterMs !== null && latencyMs > monitor.degradedAfterMs;
    return {
      ...base,
      result: degraded ? 'degraded' : 'up',
      error: degraded ? `slower than ${monitor.degradedAfterMs} ms` : null,
    };
  } catch (error) {
    const err = error as {
      name?: string;
      code?: string;
      message?: string;
      cause?: { code?: string; message?: string };
    };
    if (error instanceof OutboundRefusedError)
      return { result: 'down', statusCode: null, latencyMs: null, timings: null, error: `refused: ${error.message}` };
    const timedOut =
      err.name === 'TimeoutError' ||
      err.name === 'AbortError' ||
      err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
      err.code === 'UND_ERR_BODY_TIMEOUT';
    const message = timedOut
      ? `timeout after ${monitor.timeoutMs} ms`
      : `${err.cause?.code ?? err.code ?? 'error'}: ${err.cause?.message ?? err.message ?? String(error)}`;
    return { result: 'down', statusCode: null, latencyMs: null, timings: null, error: message };
  }
}
