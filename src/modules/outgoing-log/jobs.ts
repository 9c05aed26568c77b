import type { JobDefinition } from '../../jobs/definitions.js';
import type { OutgoingLogService } from './service.js';

/** Kept per tenant as its plan's `outgoing_log_retention_days` says. */
export function outgoingLogJobs(
  outgoingLog: OutgoingLogService,
  { intervalMs }: { intervalMs: number },
): JobDefinition[] {
  return [{ every: 'outgoing-log-retention', intervalMs, run: () => outgoingLog.prune() }];
}
