import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { MetaEventDeliveryRow, MetaPixelRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { ContainerService } from '../containers/service.js';
import { MetaPixelErrors } from './errors.js';
import * as queries from './queries.js';
import type {
  CreatedMetaPixelDto,
  CreateMetaPixelInput,
  DeliveryStatus,
  GraphErrorDto,
  MetaEventDeliveryDto,
  MetaPixelDto,
  UpdateMetaPixelInput,
} from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

const MAX_PIXELS_PER_CONTAINER = 10;
/** Published (id: the container id) when a container's pixels change: a runtime caching `forwardingTargets` drops them. */
export const META_PIXELS_CHANGED = 'meta_pixels';
const tokenPurpose = (metaPixelId: string) => `meta-pixel-token:${metaPixelId}`;

/** A pixel as the runtime forwards to it: Meta's ids and the opened access token. Never leaves the process. */
export interface MetaForwardingTarget {
  /** Tagport's id (`mpx_…`), for `recordDeliveries`. */
  id: string;
  pixelId: string;
  accessToken: string;
  testEventCode: string | null;
}

/** The outcome of one Graph API request (one attempt) for the events it carried. */
export interface MetaDeliveryOutcome {
  /** Tagport's pixel id (`MetaForwardingTarget.id`). */
  metaPixelId: string;
  /** The events of the request, as sent (`event_id`, `event_name` of each MetaServerEvent). */
  events: Array<{ eventId: string; eventName: string }>;
  /** `retrying` when the queue will send again, `failed` when Graph refused or the retries ran out. */
  status: DeliveryStatus;
  httpStatus: number | null;
  error: GraphErrorDto | null;
}

function toDto(row: MetaPixelRow): MetaPixelDto {
  return {
    id: row.id,
    container_id: row.containerId,
    pixel_id: row.pixelId,
    access_token_last4: row.accessTokenLast4,
    test_event_code: row.testEventCode,
    created_at: row.createdAt.toISOString(),
  };
}

function toDeliveryDto(row: MetaEventDeliveryRow): MetaEventDeliveryDto {
  return {
    event_id: row.eventId,
    event_name: row.eventName,
    status: row.status,
    attempts: row.attempts,
    http_status: row.httpStatus,
    error: row.error ?? null,
    first_attempt_at: row.firstAttemptAt.toISOString(),
    last_attempt_at: row.lastAttemptAt.toISOString(),
  };
}

/**
 * Meta pixels of containers (Conversions API credentials) and the Graph API's answers per event. Access tokens are
 * sealed with SECRETS_KEY; this service is the only place one is opened (`forwardingTargets`, for the runtime).
 */
export class MetaPixelService {
  private readonly database: Database;
  private readonly containers: ContainerService;
  private readonly invalidations: InvalidationBus;

  constructor(
    {
      database,
      containers,
      invalidations,
    }: { database: Database; containers: ContainerService; invalidations: InvalidationBus },
    private readonly settings: { secrets: SecretBox | null },
  ) {
    this.database = database;
    this.containers = containers;
    this.invalidations = invalidations;
  }

  private get db() {
    return this.database.db;
  }

  private async pixel(tenantId: string, containerId: string, id: string): Promise<MetaPixelRow> {
    await this.containers.find(tenantId, containerId);
    const row = await queries.findPixel(this.db, tenantId, containerId, id);
    if (!row) throw MetaPixelErrors.notFound(id);
    return row;
  }

  /** Adds a pixel to a live container; the token is sealed at once and shown in this answer only. */
  async create(tenantId: string, containerId: string, input: CreateMetaPixelInput): Promise<CreatedMetaPixelDto> {
    const container = await this.containers.findLive(tenantId, containerId);
    if (!container) throw MetaPixelErrors.containerNotFound(containerId);
    const secrets = this.settings.secrets;
    if (!secrets) throw MetaPixelErrors.secretsKeyMissing();
    if ((await queries.countPixels(this.db, containerId)) >= MAX_PIXELS_PER_CONTAINER)
      throw MetaPixelErrors.tooMany(MAX_PIXELS_PER_CONTAINER);
    const id = newId('metaPixel');
    const row = await queries.insertPixel(this.db, {
      id,
      tenantId,
      containerId,
      pixelId: input.pixel_id,
      accessTokenSealed: secrets.seal(input.access_token, tokenPurpose(id)),
      accessTokenLast4: input.access_token.slice(-4),
      testEventCode: input.test_event_code ?? null,
    });
    if (!row) throw MetaPixelErrors.exists(input.pixel_id);
    await this.invalidations.publish({ kind: META_PIXELS_CHANGED, id: containerId });
    return { ...toDto(row), access_token: input.access_token };
  }

  async list(tenantId: string, containerId: string, window: ListWindow) {
    await this.containers.find(tenantId, containerId);
    const { rows, total } = await queries.listPixels(this.db, tenantId, containerId, window);
    return { results: rows.map(toDto), total };
  }

  async get(tenantId: string, containerId: string, id: string): Promise<MetaPixelDto> {
    return toDto(await this.pixel(tenantId, containerId, id));
  }

  /**
   * Replaces the access token (sealed as on create, never returned) or sets or clears the test event code. The
   * pixel keeps its id and delivery records; the runtime sends the next event with the new values.
   */
  async update(tenantId: string, containerId: string, id: string, input: UpdateMetaPixelInput): Promise<MetaPixelDto> {
    const row = await this.pixel(tenantId, containerId, id);
    const changes: queries.PixelChanges = {};
    if (input.access_token !== undefined) {
      const secrets = this.settings.secrets;
      if (!secrets) throw MetaPixelErrors.secretsKeyMissing();
      changes.accessTokenSealed = secrets.seal(input.access_token, tokenPurpose(row.id));
      changes.accessTokenLast4 = input.access_token.slice(-4);
    }
    if (input.test_event_code !== undefined) changes.testEventCode = input.test_event_code;
    const updated = await queries.updatePixel(this.db, row.id, changes);
    if (!updated) throw MetaPixelErrors.notFound(id);
    await this.invalidations.publish({ kind: META_PIXELS_CHANGED, id: containerId });
    return toDto(updated);
  }

  /** Stops forwarding to the pixel; its token and delivery records are deleted with it. */
  async delete(tenantId: string, containerId: string, id: string): Promise<MetaPixelDto> {
    const row = await this.pixel(tenantId, containerId, id);
    await queries.deletePixel(this.db, row.id);
    await this.invalidations.publish({ kind: META_PIXELS_CHANGED, id: containerId });
    return toDto(row);
  }

  /** The Graph API's answers for the pixel's events, most recently sent first. */
  async deliveries(
    tenantId: string,
    containerId: string,
    id: string,
    status: DeliveryStatus | undefined,
    window: ListWindow,
  ): Promise<{ results: MetaEventDeliveryDto[]; total: number }> {
    const row = await this.pixel(tenantId, containerId, id);
    const { rows, total } = await queries.listDeliveries(this.db, row.id, status, window);
    return { results: rows.map(toDeliveryDto), total };
  }

  /**
   * For the runtime: the container's pixels with their access tokens opened. Empty without SECRETS_KEY (no pixel
   * could have been stored); a token that no longer opens (SECRETS_KEY changed) leaves its pixel out. Cache it per
   * container until META_PIXELS_CHANGED (or EVERYTHING) is published for the container.
   */
  async forwardingTargets(
    containerId: string,
    onError: (error: unknown) => void = () => {},
  ): Promise<MetaForwardingTarget[]> {
    const secrets = this.settings.secrets;
    if (!secrets) return [];
    const rows = await queries.pixelsOfContainer(this.db, containerId);
    return rows.flatMap((row) => {
      try {
        const accessToken = secrets.open(row.accessTokenSealed, tokenPurpose(row.id));
        return [{ id: row.id, pixelId: row.pixelId, accessToken, testEventCode: row.testEventCode }];
      } catch (error) {
        onError(
          new Error(`The access token of Meta pixel ${row.id} does not open with this SECRETS_KEY`, { cause: error }),
        );
        return [];
      }
    });
  }

  /**
   * For the runtime's forward queue, after each Graph request: records the answer for every event it carried, in
   * one statement. `delivered` clears the error; each call for an event seen before adds an attempt.
   */
  async recordDeliveries(outcome: MetaDeliveryOutcome): Promise<void> {
    await queries.upsertDeliveries(
      this.db,
      outcome.events.map((event) => ({
        metaPixelId: outcome.metaPixelId,
        eventId: event.eventId,
        eventName: event.eventName,
        status: outcome.status,
        httpStatus: outcome.httpStatus,
        error: outcome.status === 'delivered' ? null : outcome.error,
      })),
    );
  }

  /** Deletes delivery records last touched before `before`; returns how many. A step for a periodic job. */
  pruneDeliveries(before: Date): Promise<number> {
    return queries.deleteDeliveriesBefore(this.db, before);
  }
}
