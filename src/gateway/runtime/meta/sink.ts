import { EVERYTHING, type InvalidationBus } from '../../../db/invalidation.js';
import {
  META_PIXELS_CHANGED,
  type MetaDeliveryOutcome,
  type MetaForwardingTarget,
} from '../../../modules/meta-pixels/service.js';
import type { ForwardJob, SendResult } from '../forward-queue.js';
import type { CollectedEvent } from '../index.js';
import { anonymize } from '../powerups/index.js';
import { type MetaServerEvent, toMetaEvent } from './events.js';
import { deliveryOutcome, metaOutgoing, sendResultOf } from './outcome.js';
import type { MetaPixelTarget, MetaSendResult } from './sender.js';

/** What the sink needs of the Meta pixels service: the container's pixels, and a place for Graph's answers. */
export interface MetaPixelSource {
  forwardingTargets(containerId: string, onError?: (error: unknown) => void): Promise<MetaForwardingTarget[]>;
  recordDeliveries(outcome: MetaDeliveryOutcome): Promise<void>;
}

export interface MetaEventSender {
  send(target: MetaPixelTarget, events: MetaServerEvent[]): Promise<MetaSendResult>;
}

/** Containers whose pixels are cached at most; beyond, the cache starts over. */
const MAX_CACHED_CONTAINERS = 10_000;

/**
 * The Meta Conversions API sink of the built-in runtime: each collected event Meta has a counterpart for, with the
 * container's `anonymizer.meta` rules applied, becomes one forward per pixel of the container. Every Graph answer is
 * recorded per event (`retrying`, `delivered`, `failed`). The pixels of a container are cached until the pixels
 * service says they changed.
 */
export class MetaSink {
  private readonly targets = new Map<string, Promise<MetaForwardingTarget[]>>();
  /** The pixels of containers whose lookup has finished: an event for them is turned into jobs without waiting. */
  private readonly known = new Map<string, MetaForwardingTarget[]>();

  constructor(
    private readonly dependencies: { pixels: MetaPixelSource; sender: MetaEventSender; invalidations: InvalidationBus },
    private readonly settings: { maxAttempts: number; onError: (error: unknown) => void },
  ) {
    dependencies.invalidations.subscribe(({ kind, id }) => {
      if (kind === META_PIXELS_CHANGED) {
        this.targets.delete(id);
        this.known.delete(id);
      } else if (kind === EVERYTHING.kind) {
        this.targets.clear();
        this.known.clear();
      }
    });
  }

  /** The runtime's EventSink (`runtime.addSink(metaSink.sink)`). */
  readonly sink = (collected: CollectedEvent): ForwardJob[] | Promise<ForwardJob[]> => {
    const known = this.known.get(collected.route.containerId);
    if (known) return this.jobs(collected, known);
    return this.targetsOf(collected.route.containerId).then((targets) => this.jobs(collected, targets));
  };

  private jobs({ event, visitor, route }: CollectedEvent, targets: MetaForwardingTarget[]): ForwardJob[] {
    if (targets.length === 0) return [];
    const anonymized = anonymize(event, visitor, route.settings.anonymizer.meta);
    const metaEvent = toMetaEvent(anonymized.event, anonymized.visitor);
    if (!metaEvent) return [];
    return targets.map((target) => this.job(route.containerId, target, metaEvent));
  }

  private targetsOf(containerId: string): Promise<MetaForwardingTarget[]> {
    let targets = this.targets.get(containerId);
    if (!targets) {
      if (this.targets.size >= MAX_CACHED_CONTAINERS) {
        this.targets.clear();
        this.known.clear();
      }
      const lookup = this.dependencies.pixels.forwardingTargets(containerId, this.settings.onError);
      targets = lookup;
      lookup.then(
        // Kept only while this lookup is still the cached one (no change came in meanwhile).
        (found) => this.targets.get(containerId) === lookup && this.known.set(containerId, found),
        () => this.targets.delete(containerId),
      );
      this.targets.set(containerId, targets);
    }
    return targets;
  }

  private job(containerId: string, target: MetaForwardingTarget, event: MetaServerEvent): ForwardJob {
    let attempts = 0;
    return {
      vendor: 'meta',
      containerId,
      outgoing: metaOutgoing(target, event),
      send: async (): Promise<SendResult> => {
        attempts++;
        const result = await this.dependencies.sender.send(target, [event]);
        const lastAttempt = attempts >= this.settings.maxAttempts;
        try {
          await this.dependencies.pixels.recordDeliveries(deliveryOutcome(target.id, [event], result, lastAttempt));
        } catch (error) {
          this.settings.onError(new Error(`Meta delivery of pixel ${target.id} not recorded.`, { cause: error }));
        }
        return sendResultOf(result);
      },
    };
  }
}
