import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import * as queries from './queries.js';
import type { ContainerRuntime } from './service.js';

export interface ContainerWorkerDependencies {
  database: Database;
  outbound: OutboundClient;
  events: EventLog;
  invalidations: InvalidationBus;
}

/**
 * Carries containers through their transitional states (provisioning, starting, stopping, deleting). In
 * process by default: `enqueue` schedules the next step after `delayMs`; each step is a conditional UPDATE
 * from the state it read, so two instances (or a resumed job) can never apply a step twice. The queue
 * interface is all the API uses, ready for a distributed queue.
 */
export class ContainerWorker implements ContainerRuntime {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly invalidations: InvalidationBus;
  private readonly delayMs: number;
  private readonly onError: (error: unknown) => void;

  constructor(
    { database, outbound, events, invalidations }: ContainerWorkerDependencies,
    { delayMs, onError }: { delayMs: number; onError: (error: unknown) => void },
  ) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.invalidations = invalidations;
    this.delayMs = delayMs;
    this.onError = onError;
  }

  /** Resumes transitions left unfinished by a previous process. */
  async start(): Promise<void> {
    for (const id of await queries.transitionalContainers(this.database.db)) this.enqueue(id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.allSettled([...this.running]);
  }

  enqueue(containerId: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const step: Promise<void> = this.advance(containerId)
        .catch(this.onError)
        .finally(() => this.running.delete(step));
      this.running.add(step);
    }, this.delayMs);
    this.timers.add(timer);
  }

  /** Waits for the queued steps (tests). */
  async idle(): Promise<void> {
    while (this.timers.size || this.running.size) await new Promise((resolve) => setTimeout(resolve, 5));
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
      this.enqueue(id);
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
