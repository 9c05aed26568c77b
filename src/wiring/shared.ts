import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { InvalidationBus } from '../db/invalidation.js';
import type { JobEngine } from '../jobs/engine.js';
import type { Mailer } from '../lib/mail.js';
import type { OutboundClient } from '../lib/outbound.js';
import type { EventLog } from '../modules/events/service.js';
import type { ScanLog } from '../modules/tracking-checker/worker.js';

/** What every area of the composition root builds on: the process's database, configuration and shared plumbing. */
export interface Shared {
  database: Database;
  config: Config;
  invalidations: InvalidationBus;
  jobs: JobEngine;
  outbound: OutboundClient;
  events: EventLog;
  mailer: Mailer;
  onError: (error: unknown) => void;
  /** Where workers log what they ran into (the app's logger). */
  log: ScanLog;
}
