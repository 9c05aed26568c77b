import type { Database } from '../../db/index.js';
import type { DelayedRequestSink, HeldRequest } from '../../gateway/delay.js';
import { newId } from '../../lib/ids.js';
import * as queries from './queries.js';

/** Pending delayed requests a container may have; beyond, new ones are refused (429). */
export const DEFAULT_DELAYED_REQUEST_CAP = 10_000;

/** A delayed request's id: `dly_` and the layout of every id (time-sortable). */
export function delayedRequestId(): string {
  return `dly_${newId('request').slice(4)}`;
}

/** Where the gateway stores the requests Request Delay holds (src/gateway/delay.ts), each container up to `cap`. */
export class DelayedRequestIntake implements DelayedRequestSink {
  constructor(
    private readonly database: Database,
    private readonly settings: { cap: number } = { cap: DEFAULT_DELAYED_REQUEST_CAP },
  ) {}

  async hold(request: HeldRequest): Promise<{ id: string; dueAt: Date } | 'full'> {
    const id = delayedRequestId();
    const dueAt = new Date(Date.now() + request.minutes * 60_000);
    const stored = await queries.insertHeld(
      this.database.db,
      {
        id,
        containerId: request.containerId,
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        delayMinutes: request.minutes,
        status: 'pending',
        dueAt,
        nextAttemptAt: dueAt,
      },
      this.settings.cap,
    );
    return stored ? { id, dueAt } : 'full';
  }
}
