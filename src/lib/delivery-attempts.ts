import type { OutboundClient } from './outbound.js';

/**
 * One attempt of an outgoing delivery (webhooks, notifications) and the back-off after it: the attempt is sent,
 * its outcome recorded on the delivery row, and a failure with attempts left throws so the job engine retries it.
 */
export interface DeliveryAttemptSettings {
  /** Delay before the first retry; doubles with every attempt. */
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

/** What one attempt came to. */
export interface Attempt {
  statusCode: number | null;
  error: string | null;
  /** A failure no retry can mend (no SMTP configured): the delivery fails at once. */
  final?: boolean;
}

/** What is written on the delivery row after an attempt. */
export interface AttemptRecord {
  status: 'pending' | 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  /** When the next attempt is due; null once the delivery is settled. */
  nextAttemptAt: Date | null;
}

export const describeFailure = (caught: unknown) =>
  caught instanceof Error ? `${(caught as { code?: string }).code ?? 'error'}: ${caught.message}` : String(caught);

/**
 * POSTs a JSON body through the outbound guard; a non-2xx answer or a refused or failed request is the attempt's
 * error. With `hideTarget`, the URL never appears in the error (a Slack URL is a secret).
 */
export async function postJson(
  outbound: OutboundClient,
  target: string,
  request: { body: string; headers?: Record<string, string>; timeoutMs: number; hideTarget?: boolean },
): Promise<Attempt> {
  try {
    const url = await outbound.checkUrl(target);
    const response = await outbound.send(url, {
      method: 'POST',
      timeoutMs: request.timeoutMs,
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.body,
    });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { statusCode: response.statusCode, error: ok ? null : `endpoint answered ${response.statusCode}` };
  } catch (caught) {
    const error = describeFailure(caught);
    return { statusCode: null, error: request.hideTarget ? error.replaceAll(target, '[url]') : error };
  }
}

/**
 * Records an attempt of a delivery that had `previousAttempts` before it, with exponential back-off, and throws
 * `failure(message)` when it failed and may be retried, so that the job engine schedules the retry; the last
 * failure marks the delivery failed and throws too (the job lands in the dead letter queue). A final failure
 * marks it failed without throwing.
 */
export async function settleAttempt(
  delivery: { id: string; attempts: number },
  attempt: Attempt,
  {
    settings,
    record,
    failure,
  }: {
    settings: DeliveryAttemptSettings;
    record: (id: string, outcome: AttemptRecord) => Promise<void>;
    failure: (message: string) => Error;
  },
): Promise<void> {
  const attempts = delivery.attempts + 1;
  const succeeded = attempt.error === null;
  const exhausted = !succeeded && (attempt.final || attempts >= settings.maxAttempts);
  await record(delivery.id, {
    status: succeeded ? 'succeeded' : exhausted ? 'failed' : 'pending',
    statusCode: attempt.statusCode,
    error: attempt.error,
    nextAttemptAt: succeeded || exhausted ? null : new Date(Date.now() + settings.retryBaseMs * 2 ** (attempts - 1)),
  });
  if (!succeeded && !attempt.final) throw failure(`${delivery.id} attempt ${attempts}: ${attempt.error}`);
}
