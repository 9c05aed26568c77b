import type { JobDefinition } from '../../jobs/definitions.js';
import type { RetentionService } from './service.js';

export function retentionJobs(retention: RetentionService, { intervalMs }: { intervalMs: number }): JobDefinition[] {
  return [{ every: 'retention', intervalMs, run: () => retention.pruneOnce() }];
}
