import type { JobDefinition } from '../../jobs/definitions.js';
import { REPORT_BUILDS, type ReportService } from './service.js';

export function reportJobs(reports: ReportService): JobDefinition[] {
  return [
    {
      queue: REPORT_BUILDS,
      options: { retryLimit: 2, expireInSeconds: 600 },
      handler: reports.buildReport.bind(reports),
      work: { concurrency: 2, batchSize: 1 },
      shownAs: 'report builds',
    },
  ];
}
