import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { JobEngine } from '../../jobs/engine.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import * as queries from './queries.js';
import type { ContainerRuntime } from './service.js';
import type { ContainerTaggingServers } from './tagging.js';
import type { ContainerRow } from '../../db/schema.js';
import type { ContainerStatus } from './schemas.js';

/** The queue of container transitions (one job per step; `stately` with the container as key: no double step). */
export const CONTAINER_TRANSITIONS = 'container-transition';

export interface ContainerWorkerDependencies {
  database: Database;
  outbound: OutboundClient;
  events: EventLog;
  invalidations: InvalidationBus;
  jobs: Pick<JobEngine, 'send' | 'idle'>;
  /** The Google tagging servers of `sgtm` containers. */
  tagging: ContainerTaggingServers;
}

type Next = { status: ContainerStatus; statusReason?: string | null; pendingAction?: string | null };
/** A transition job: `poll` when it only looks again at a container waiting on its tagging servers. */
type TransitionStep = { containerId: string; poll?: boolean };
/** How often a container waiting on its tagging servers (available, stopped) is looked at. */
const TAGGING_SERVER_POLL_MS = 500;

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
  private readonly tagging: ContainerTaggingServers;
  private readonly delayMs: number;
  private readonly startTimeoutMs: number;

  constructor(
    { database, outbound, events, invalidations, jobs, tagging }: ContainerWorkerDependencies,
    { delayMs, startTimeoutMs }: { delayMs: number; startTimeoutMs: number },
  ) {
    this.tagging = tagging;
    this.startTimeoutMs = startTimeoutMs;
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
    await this.send({ containerId }, this.delayMs);
  }

  /** The next look at a container waiting on its tagging servers: no sooner than `TAGGING_SERVER_POLL_MS`. */
  private async poll(containerId: string): Promise<void> {
    await this.send({ containerId, poll: true }, Math.max(this.delayMs, TAGGING_SERVER_POLL_MS));
  }

  private async send(step: TransitionStep, delayMs: number): Promise<void> {
    await this.jobs.send(CONTAINER_TRANSITIONS, step, {
      singletonKey: step.containerId,
      startAfter: new Date(Date.now() + delayMs),
    });
  }

  /** Waits until no transition is waiting or running (tests). */
  async idle(): Promise<void> {
    await this.jobs.idle([CONTAINER_TRANSITIONS]);
  }

  /** One step of the container's transition: the job handler. */
  async step({ containerId, poll }: TransitionStep): Promise<void> {
    await this.advance(containerId, poll ?? false);
  }

  private async advance(id: string, poll: boolean): Promise<void> {
    const container = await queries.findContainerById(this.database.db, id);
    if (!container) return;
    if (container.runtime === 'sgtm') return this.advanceTaggingServers(container, poll);
    let next: Next | null = null;
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
    await this.move(container, next);
  }

  /**
   * The same steps for a container on Google's tagging servers: each asks the orchestrator and moves on only once
   * it reports the state reached (available, stopped), polling meanwhile; failures carry the orchestrator's reason.
   */
  private async advanceTaggingServers(container: ContainerRow, poll: boolean): Promise<void> {
    const hosting = this.tagging.hosting;
    if (hosting.unavailable) return this.advanceWithoutTaggingServers(container, hosting.unavailable);
    switch (container.status) {
      case 'provisioning':
      case 'starting': {
        if (!poll) await this.startTaggingServers(container);
        const state = await hosting.observe(container.id);
        if (state.phase === 'available') return this.move(container, { status: 'running', statusReason: null });
        if (state.phase === 'failed') return this.fail(container, state.reason ?? 'The tagging server failed.');
        if (Date.now() - container.updatedAt.getTime() > this.startTimeoutMs)
          return this.fail(
            container,
            `The tagging servers did not become available within ${Math.round(this.startTimeoutMs / 1000)} s${state.reason ? `: ${state.reason}` : '.'}`,
          );
        return this.poll(container.id);
      }
      case 'stopping': {
        // Asked again on every look: a stop is idempotent, and a step queued while a look waited is merged into it.
        await hosting.stop(container.id);
        const state = await hosting.observe(container.id);
        if (state.phase === 'stopped' || state.phase === 'absent') return this.move(container, { status: 'stopped' });
        return this.poll(container.id);
      }
      case 'stopped':
        if (container.pendingAction !== 'start') return;
        return this.move(container, { status: 'starting', pendingAction: null });
      case 'deleting':
        await hosting.remove(container.id);
        return this.move(container, { status: 'deleted', statusReason: null });
    }
  }

  /**
   * A running `sgtm` container whose tagging servers the orchestrator reports failed with none left ready (a crash
   * loop, an image that cannot be pulled) becomes `failed` with the reason: its monitors and alerts see it. One still
   * served by older replicas while a change fails to roll out stays running.
   */
  async failBrokenTaggingServers(): Promise<void> {
    if (this.tagging.hosting.unavailable) return;
    for (const container of await queries.runningContainersOnRuntime(this.database.db, 'sgtm')) {
      const state = await this.tagging.hosting.observe(container.id);
      if (state.phase === 'failed' && state.replicas.ready === 0)
        await this.fail(container, state.reason ?? 'The tagging servers failed.');
    }
  }

  /**
   * Applies the container's spec once per start; tagging servers that failed before (their replicas given up) are
   * replaced by a new generation, so a start tries them afresh.
   */
  private async startTaggingServers(container: ContainerRow): Promise<void> {
    const hosting = this.tagging.hosting;
    const before = await hosting.observe(container.id);
    await hosting.apply(await this.tagging.spec(container));
    if (before.phase === 'failed') await hosting.restart(container.id);
  }

  /** `sgtm` switched off on this instance (no driver): nothing of the container can run, so nothing needs stopping. */
  private async advanceWithoutTaggingServers(container: ContainerRow, reason: string): Promise<void> {
    if (container.status === 'provisioning' || container.status === 'starting')
      return this.move(container, { status: 'failed', statusReason: reason });
    if (container.status === 'stopping') return this.move(container, { status: 'stopped' });
    if (container.status === 'deleting') return this.move(container, { status: 'deleted', statusReason: null });
    if (container.status === 'stopped' && container.pendingAction === 'start')
      return this.move(container, { status: 'starting', pendingAction: null });
  }

  private async fail(container: ContainerRow, reason: string): Promise<void> {
    // Nothing keeps retrying a container that cannot start: it stays failed until started again.
    await this.tagging.hosting.stop(container.id);
    await this.move(container, { status: 'failed', statusReason: reason });
  }

  /** Applies the step if the container is still where it was read, then tells the gateways and the tenant. */
  private async move(container: ContainerRow, next: Next): Promise<void> {
    const id = container.id;
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
