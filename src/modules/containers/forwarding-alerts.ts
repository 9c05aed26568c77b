import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { rowsOf } from '../../db/rows.js';
import type { EventLog } from '../events/service.js';

/** A container that lost forwards since its last alert: failed for good, or hits refused with a full queue. */
interface ForwardingLoss {
  containerId: string;
  tenantId: string;
  day: string;
  forwardsFailed: number;
  hitsRefused: number;
  alreadyAlerted: number;
}

/** At most one alert per container and hour while losses go on. */
const REALERT_AFTER = '1 hour';

/**
 * Alerts a tenant when one of its builtin containers loses forwards (`container.forwarding_degraded`, through the
 * event log, its webhooks and notification channels): forwards a vendor refused or that ran out of attempts, and
 * hits answered 503 because the forward queue was full. Reads the usage the gateways flush; claims each alert with
 * one statement, so two workers never send the same one.
 */
export class ForwardingAlerts {
  constructor(private readonly dependencies: { database: Database; events: EventLog }) {}

  /** Alerts every container with new losses today or yesterday (UTC) that was not alerted within the hour. */
  async checkDue(now = new Date()): Promise<number> {
    const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
    let sent = 0;
    for (const loss of await this.newLosses(yesterday)) {
      if (!(await this.claim(loss))) continue;
      await this.dependencies.events.record(
        loss.tenantId,
        'container.forwarding_degraded',
        { type: 'container', id: loss.containerId },
        {
          day: loss.day,
          forwards_failed: loss.forwardsFailed,
          hits_refused: loss.hitsRefused,
          new_losses: loss.forwardsFailed + loss.hitsRefused - loss.alreadyAlerted,
        },
      );
      sent++;
    }
    return sent;
  }

  private async newLosses(since: string): Promise<ForwardingLoss[]> {
    const result = await this.dependencies.database.db.execute(sql`
      SELECT u.container_id AS "containerId", c.tenant_id AS "tenantId", u.day,
        u.forwards_failed AS "forwardsFailed", u.hits_refused AS "hitsRefused",
        coalesce(a.losses_alerted, 0) AS "alreadyAlerted"
      FROM container_runtime_usage u
      JOIN containers c ON c.id = u.container_id
      LEFT JOIN container_forwarding_alerts a ON a.container_id = u.container_id AND a.day = u.day
      WHERE u.day >= ${since}
        AND u.forwards_failed + u.hits_refused > coalesce(a.losses_alerted, 0)
        AND (a.alerted_at IS NULL OR a.alerted_at < now() - ${REALERT_AFTER}::interval)`);
    return rowsOf<ForwardingLoss>(result);
  }

  /** Records the alert unless another worker did within the hour; true when this call owns it. */
  private async claim(loss: ForwardingLoss): Promise<boolean> {
    const result = await this.dependencies.database.db.execute(sql`
      INSERT INTO container_forwarding_alerts (container_id, day, losses_alerted, alerted_at)
      VALUES (${loss.containerId}, ${loss.day}, ${loss.forwardsFailed + loss.hitsRefused}, now())
      ON CONFLICT (container_id, day) DO UPDATE
        SET losses_alerted = excluded.losses_alerted, alerted_at = excluded.alerted_at
        WHERE container_forwarding_alerts.alerted_at < now() - ${REALERT_AFTER}::interval
      RETURNING container_id`);
    return rowsOf(result).length === 1;
  }
}
