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

  constructor(
    private readonly dependencies: { pixels: MetaPixelSource; sender: MetaEventSender; invalidations: InvalidationBus },
    private readonly settings: { maxAttempts: number; onError: (error: unknown) => void },
  ) {
    dependencies.invalidations.subscribe(({ kind, id }) => {
      if (kind === META_PIXELS_CHANGED) this.targets.delete(id);
      else if (kind === EVERYTHING.kind) this.targets.clear();
    });
  }

  /** The runtime's EventSink (`runtime.addSink(metaSink.sink)`). */
  readonly sink = async ({ event, visitor, route }: CollectedEvent): Promise<ForwardJob[]> => {
    const targets = await this.targetsOf(route.containerId);
    if (targets.length === 0) return [];
    const anonymized = anonymize(event, visitor, route.settings.anonymizer.meta);
    const metaEvent = toMetaEvent(anonymized.event, anonymized.visitor);
    if (!metaEvent) return [];
    return targets.map((target) => this.job(route.containerId, target, metaEvent));
  };

  private targetsOf(containerId: string): Promise<MetaForwardingTarget[]> {
    let targets = this.targets.get(containerId);
    if (!targets) {
      if (this.targets.size >= MAX_CACHED_CONTAINERS) this.targets.clear();
      targets = this.dependencies.pixels.forwardingTargets(containerId, this.settings.onError);
      targets.catch(() => this.targets.delete(containerId));
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
