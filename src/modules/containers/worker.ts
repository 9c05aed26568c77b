import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { JobEngine } from '../../jobs/engine.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import * as queries from './queries.js';
import type { ContainerRuntime } from './service.js';

/** The queue of container transitions (one job per step; `stately` with the container as key: no double step). */
export const CONTAINER_TRANSITIONS = 'container-transition';

export interface ContainerWorkerDependencies {
  database: Database;
  outbound: OutboundClient;
  events: EventLog;
  invalidations: InvalidationBus;
  jobs: Pick<JobEngine, 'send' | 'idle'>;
}

/**
 * Carries containers through their transitional states (provisioning, starting, stopping, deleting) as jobs of the
 * job engine: `enqueue` sends the next step to run after `delayMs`, and a worker runs `advance`. Each step is a
 * conditional UPDATE from the state it read, so a step retried after a worker died is never applied twice.
 */
export class ContainerWorker implements ContainerRuntime {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly invalidations: InvalidationBus;
  private readonly jobs: Pick<JobEngine, 'send' | 'idle'>;
  private readonly delayMs: number;

  constructor(
    { database, outbound, events, invalidations, jobs }: ContainerWorkerDependencies,
    { delayMs }: { delayMs: number },
  ) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.invalidations = invalidations;
    this.jobs = jobs;
    this.delayMs = delayMs;
  }

  /** Queues the transitions a crash left without a job (their job is deduplicated when it still exists). */
  async resumeUnfinished(): Promise<void> {
    for (const id of await queries.transitionalContainers(this.database.db)) await this.enqueue(id);
  }

  async enqueue(containerId: string): Promise<void> {
    await this.jobs.send(
      CONTAINER_TRANSITIONS,
      { containerId },
      { singletonKey: containerId, startAfter: new Date(Date.now() + this.delayMs) },
    );
  }

  /** Waits until no transition is waiting or running (tests). */
  async idle(): Promise<void> {
    await this.jobs.idle([CONTAINER_TRANSITIONS]);
  }

  /** One step of the container's transition: the job handler. */
  async step({ containerId }: { containerId: string }): Promise<void> {
    await this.advance(containerId);
  }

  private async advance(id: string): Promise<void> {
    const container = await queries.findContainerById(this.database.db, id);
    if (!container) return;
    let next: { status: string; statusReason?: string | null; pendingAction?: string | null } | null = null;
    switch (container.status) {
      case 'provisioning':
      case 'starting': {
        const problem = await this.upstreamProblem(container.upstreamUrl);
        next = problem ? { status: 'failed', statusReason: problem } : { status: 'running', statusReason: null };
        break;
      }
      case 'stopping':
        next = { status: 'stopped' };
        break;
      case 'stopped':
        // the second half of a restart
        if (container.pendingAction !== 'start') return;
        next = { status: 'starting', pendingAction: null };
        break;
      case 'deleting':
        next = { status: 'deleted', statusReason: null };
        break;
      default:
        return;
    }
    const moved = await queries.transition(this.database.db, id, [container.status], next);
    if (!moved) return;
    await this.invalidations.publish({ kind: 'container', id });
    await this.events.record(
      container.tenantId,
      'container.status_changed',
      { type: 'container', id },
      { from: container.status, to: moved.status, reason: moved.statusReason },
    );
    if (['starting', 'stopping', 'provisioning', 'deleting'].includes(moved.status) || moved.pendingAction)
      await this.enqueue(id);
  }

  private async upstreamProblem(url: string | null): Promise<string | null> {
    if (!url) return null;
    try {
      await this.outbound.checkUrl(url);
      return null;
    } catch (error) {
      return `upstream refused: ${(error as Error).message}`;
    }
  }
}
