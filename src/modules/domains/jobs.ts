import type { JobDefinition } from '../../jobs/definitions.js';
import type { DomainService } from './service.js';

/** Pending domains are checked again at their interval (at least once a minute, so a due one is not missed long). */
export function domainJobs(
  domains: DomainService,
  { recheckIntervalMs }: { recheckIntervalMs: number },
): JobDefinition[] {
  return [
    { every: 'domain-recheck', intervalMs: Math.min(recheckIntervalMs, 60_000), run: () => domains.recheckDue() },
  ];
}
