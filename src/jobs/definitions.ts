import type { JobEngine, JobHandler, QueueOptions, WorkOptions } from './engine.js';

/** A queue a module owns: its retry policy and, unless it only keeps dead letters, the handler workers run. */
export interface QueueDefinition<T extends object = object> {
  queue: string;
  options: QueueOptions;
  handler?: JobHandler<T>;
  work?: WorkOptions;
  /** The name its backlog has on the status page; queues that share a name are added up. */
  shownAs?: string;
}

/** A step a module runs every `intervalMs` on one worker of the cluster. */
export interface PeriodicDefinition {
  every: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

/** Any module's job (a handler of `CheckJob` data is a handler of `never`: the engine gives each its own data). */
export type JobDefinition = QueueDefinition<never> | PeriodicDefinition;

/** Declares every module's queues and periodic jobs on the engine. */
export function registerJobs(engine: JobEngine, definitions: readonly JobDefinition[]): void {
  for (const definition of definitions) {
    if ('every' in definition) engine.every(definition.every, definition.intervalMs, definition.run);
    else engine.define(definition.queue, definition.options, definition.handler ?? null, definition.work);
  }
}

/** The queues' backlog as the status page shows it: waiting, running and the oldest wait, per shown name. */
export async function queueFigures(engine: JobEngine, definitions: readonly JobDefinition[]) {
  const shown = new Map<string, string[]>();
  for (const definition of definitions)
    if ('queue' in definition && definition.shownAs)
      shown.set(definition.shownAs, [...(shown.get(definition.shownAs) ?? []), definition.queue]);
  const backlog = await engine.backlog([...shown.values()].flat());
  return [...shown].map(([name, queues]) => {
    const parts = backlog.filter((entry) => queues.includes(entry.name));
    return {
      name,
      waiting: parts.reduce((sum, part) => sum + part.waiting, 0),
      running: parts.reduce((sum, part) => sum + part.running, 0),
      oldest_wait_seconds: Math.max(0, ...parts.map((part) => part.oldestWaitSeconds)),
    };
  });
}
