import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_PIXELS_CHANGED, MetaPixelService } from '../../../src/modules/meta-pixels/service.js';
import { SecretBox } from '../../../src/lib/secrets.js';
import { request } from 'undici';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG, createBuiltinContainer, startAppWithGateway, testRuntime } from '../../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../../helpers/google-fixture.js';
import { type GraphApiFixture, startGraphApi } from '../../helpers/graph-api.js';

const TOKEN = 'EAAGm0PX4ZCpsBAtestTOKEN1234abcd';
type Tenant = { tenantId: string; token: string; keyId: string };

describe.each(backends)('Meta pixels on %s', (backend) => {
  let t: TestApp;
  let owner: Tenant;
  let other: Tenant;
  let containerId: string;
  let otherContainerId: string;

  async function createContainer(tenant: Tenant): Promise<string> {
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token: tenant.token,
      payload: { name: 'shop', region: 'eu-central', config: CONFIG },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id;
  }

  async function createPixel(pixelId: string, container = containerId, tenant = owner) {
    const created = await t.inject({
      method: 'POST',
      url: `/api/containers/${container}/meta-pixels/`,
      token: tenant.token,
      payload: { pixel_id: pixelId, access_token: TOKEN },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; pixel_id: string };
  }

  async function column(query: string): Promise<unknown> {
    const result = (await t.database.db.execute(sql.raw(query))) as unknown as { rows: Array<{ value: unknown }> };
    return result.rows[0]?.value ?? null;
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { secretsKey: randomBytes(32), containerTransitionDelayMs: 10 });
    owner = await t.tenantWithKey('pro');
    other = await t.tenantWithKey('pro');
    containerId = await createContainer(owner);
    otherContainerId = await createContainer(other);
  });
  afterAll(() => t?.close());

  describe('createMetaPixel · POST /api/containers/{id}/meta-pixels/', () => {
    it('adds the pixel and shows the access token once, then only its last four characters', async () => {
      const created = await t.inject({
        method: 'POST',
        url: `/api/containers/${containerId}/meta-pixels/`,
        token: owner.token,
        payload: { pixel_id: '1111111111111111', access_token: TOKEN, test_event_code: 'TEST4711' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const pixel = created.json();
      expect(pixel).toMatchObject({
        id: expect.stringMatching(/^mpx_/),
        container_id: containerId,
        pixel_id: '1111111111111111',
        access_token: TOKEN,
        access_token_last4: 'abcd',
        test_event_code: 'TEST4711',
      });
      const read = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/`,
        token: owner.token,
      });
      expect(read.json()).not.toHaveProperty('access_token');
      expect(read.body).not.toContain(TOKEN);
    });

    it('stores the token sealed with SECRETS_KEY, never in clear', async () => {
      const pixel = await createPixel('2222222222222222');
      const stored = String(
        await column(`select access_token_sealed as value from meta_pixels where id = '${pixel.id}'`),
      );
      expect(stored).toMatch(/^v1\./);
      expect(stored).not.toContain(TOKEN.slice(4, 20));
    });

    it('refuses the same pixel twice on a container with 409 meta_pixel_exists', async () => {
      await createPixel('3333333333333333');
      const again = await t.inject({
        method: 'POST',
        url: `/api/containers/${containerId}/meta-pixels/`,
        token: owner.token,
        payload: { pixel_id: '3333333333333333', access_token: TOKEN },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({ code: 'meta_pixel_exists', param: 'pixel_id' });
    });

    it('refuses a pixel id that is not digits, and a token with spaces, with 400', async () => {
      for (const payload of [
        { pixel_id: 'abc', access_token: TOKEN },
        { pixel_id: '4444444444', access_token: 'EAAG with spaces in the token' },
      ]) {
        const refused = await t.inject({
          method: 'POST',
          url: `/api/containers/${containerId}/meta-pixels/`,
          token: owner.token,
          payload,
        });
        expect(refused.statusCode).toBe(400);
      }
    });

    it("answers 404 for another tenant's container", async () => {
      const refused = await t.inject({
        method: 'POST',
        url: `/api/containers/${otherContainerId}/meta-pixels/`,
        token: owner.token,
        payload: { pixel_id: '5555555555', access_token: TOKEN },
      });
      expect(refused.statusCode).toBe(404);
      expect(refused.json().error.code).toBe('resource_missing');
    });

    it('refuses a member key with 403 insufficient_role', async () => {
      const member = await t.keys.create(owner.tenantId, { name: 'reader', role: 'member' });
      const refused = await t.inject({
        method: 'POST',
        url: `/api/containers/${containerId}/meta-pixels/`,
        token: member.token,
        payload: { pixel_id: '6666666666', access_token: TOKEN },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_role');
    });

    it('allows ten pixels per container and answers 409 too_many_meta_pixels for the eleventh', async () => {
      const container = await createContainer(owner);
      for (let i = 0; i < 10; i++) await createPixel(`7000000000${i}`, container);
      const eleventh = await t.inject({
        method: 'POST',
        url: `/api/containers/${container}/meta-pixels/`,
        token: owner.token,
        payload: { pixel_id: '70000000010', access_token: TOKEN },
      });
      expect(eleventh.statusCode).toBe(409);
      expect(eleventh.json().error.code).toBe('too_many_meta_pixels');
    });

    it('says why it cannot store the token when the server has no SECRETS_KEY (503 secrets_key_missing)', async () => {
      const plain = await startTestApp(backend, { secretsKey: null });
      try {
        const tenant = await plain.tenantWithKey('pro');
        const container = (
          await plain.inject({
            method: 'POST',
            url: '/api/containers/',
            token: tenant.token,
            payload: { name: 'shop', region: 'eu-central', config: CONFIG },
          })
        ).json();
        const refused = await plain.inject({
          method: 'POST',
          url: `/api/containers/${container.id}/meta-pixels/`,
          token: tenant.token,
          payload: { pixel_id: '8888888888', access_token: TOKEN },
        });
        expect(refused.statusCode).toBe(503);
        expect(refused.json().error).toMatchObject({ type: 'api_error', code: 'secrets_key_missing' });
        expect(refused.json().error.message).toMatch(/SECRETS_KEY.*not set/);
      } finally {
        await plain.close();
      }
    });
  });

  describe('listMetaPixels · GET /api/containers/{id}/meta-pixels/', () => {
    it("lists the container's pixels without tokens", async () => {
      const container = await createContainer(owner);
      await createPixel('9100000001', container);
      await createPixel('9100000002', container);
      const list = await t.inject({
        method: 'GET',
        url: `/api/containers/${container}/meta-pixels/`,
        token: owner.token,
      });
      expect(list.statusCode).toBe(200);
      expect(list.json()).toMatchObject({ count: 2 });
      expect(
        list
          .json()
          .results.map((pixel: { pixel_id: string }) => pixel.pixel_id)
          .sort(),
      ).toEqual(['9100000001', '9100000002']);
      expect(list.body).not.toContain(TOKEN);
    });

    it("answers 404 for another tenant's container", async () => {
      const list = await t.inject({
        method: 'GET',
        url: `/api/containers/${otherContainerId}/meta-pixels/`,
        token: owner.token,
      });
      expect(list.statusCode).toBe(404);
    });
  });

  describe('getMetaPixel · GET /api/containers/{id}/meta-pixels/{pixel}/', () => {
    it('answers 404 for a pixel of another container or tenant', async () => {
      const foreign = await createPixel('9200000001', otherContainerId, other);
      const asOwner = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${foreign.id}/`,
        token: owner.token,
      });
      expect(asOwner.statusCode).toBe(404);
      const mine = await createPixel('9200000002');
      const wrongContainer = await t.inject({
        method: 'GET',
        url: `/api/containers/${otherContainerId}/meta-pixels/${mine.id}/`,
        token: other.token,
      });
      expect(wrongContainer.statusCode).toBe(404);
    });
  });

  describe('updateMetaPixel · PATCH /api/containers/{id}/meta-pixels/{pixel}/', () => {
    const NEW_TOKEN = 'EAAGm0PX4ZCpsBAreplacedTOKEN9876wxyz';
    // A tenant and container of their own: a container holds at most ten pixels, a plan five containers.
    let mine: Tenant;
    let ownContainerId: string;
    beforeAll(async () => {
      mine = await t.tenantWithKey('pro');
      ownContainerId = await createContainer(mine);
    });
    const patch = (pixel: string, payload: object, tenant = mine, container = ownContainerId) =>
      t.inject({
        method: 'PATCH',
        url: `/api/containers/${container}/meta-pixels/${pixel}/`,
        token: tenant.token,
        payload,
      });

    it('replaces the access token, sealed at rest and never returned, and keeps the delivery records', async () => {
      const pixel = await createPixel('9600000001', ownContainerId, mine);
      await t.app.services.metaPixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [{ eventId: 'before-edit', eventName: 'PageView' }],
        status: 'failed',
        httpStatus: 400,
        error: null,
      });
      const sealedBefore = await column(
        `select access_token_sealed as value from meta_pixels where id = '${pixel.id}'`,
      );
      const changed = await patch(pixel.id, { access_token: NEW_TOKEN });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toMatchObject({
        id: pixel.id,
        pixel_id: '9600000001',
        access_token_last4: 'wxyz',
        test_event_code: null,
      });
      expect(changed.json()).not.toHaveProperty('access_token');
      expect(changed.body).not.toContain(NEW_TOKEN);
      expect(changed.body).not.toContain(NEW_TOKEN.slice(4, 20));

      const sealed = String(
        await column(`select access_token_sealed as value from meta_pixels where id = '${pixel.id}'`),
      );
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toBe(sealedBefore);
      expect(sealed).not.toContain(NEW_TOKEN.slice(4, 20));
      const [target] = (await t.app.services.metaPixels.forwardingTargets(ownContainerId)).filter(
        (candidate) => candidate.id === pixel.id,
      );
      expect(target.accessToken).toBe(NEW_TOKEN);

      const read = await t.inject({
        method: 'GET',
        url: `/api/containers/${ownContainerId}/meta-pixels/${pixel.id}/`,
        token: mine.token,
      });
      expect(read.json().access_token_last4).toBe('wxyz');
      expect(read.body).not.toContain(NEW_TOKEN);
      expect(
        await column(`select count(*)::int as value from meta_event_deliveries where meta_pixel_id = '${pixel.id}'`),
      ).toBe(1);
    });

    it('sets the test event code and clears it with null, leaving the token as it was', async () => {
      const pixel = await createPixel('9600000002', ownContainerId, mine);
      const set = await patch(pixel.id, { test_event_code: 'TEST0815' });
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json()).toMatchObject({ test_event_code: 'TEST0815', access_token_last4: 'abcd' });
      const target = async () =>
        (await t.app.services.metaPixels.forwardingTargets(ownContainerId)).find(
          (candidate) => candidate.id === pixel.id,
        );
      expect(await target()).toMatchObject({ accessToken: TOKEN, testEventCode: 'TEST0815' });

      const cleared = await patch(pixel.id, { test_event_code: null });
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json().test_event_code).toBeNull();
      expect(await target()).toMatchObject({ accessToken: TOKEN, testEventCode: null });
    });

    it('refuses a bad field with 400 naming it, and changes nothing', async () => {
      const pixel = await createPixel('9600000003', ownContainerId, mine);
      for (const [payload, param] of [
        [{ access_token: 'short' }, 'access_token'],
        [{ access_token: 'EAAG with spaces in the new token' }, 'access_token'],
        [{ test_event_code: 'has spaces' }, 'test_event_code'],
        [{ test_event_code: '' }, 'test_event_code'],
        [{ pixel_id: '9600000099' }, 'pixel_id'],
      ] as const) {
        const refused = await patch(pixel.id, payload);
        expect(refused.statusCode, refused.body).toBe(400);
        expect(refused.json().error).toMatchObject({ type: 'invalid_request_error', param });
        expect(refused.body).not.toContain('EAAG with spaces');
      }
      const empty = await patch(pixel.id, {});
      expect(empty.statusCode).toBe(400);
      const read = await t.inject({
        method: 'GET',
        url: `/api/containers/${ownContainerId}/meta-pixels/${pixel.id}/`,
        token: mine.token,
      });
      expect(read.json()).toMatchObject({ pixel_id: '9600000003', access_token_last4: 'abcd', test_event_code: null });
    });

    it("answers 404 for another tenant's pixel or an unknown one, and leaves the pixel as it was", async () => {
      const foreign = await createPixel('9600000004', otherContainerId, other);
      const acrossTenants = await patch(foreign.id, { access_token: NEW_TOKEN }, mine, otherContainerId);
      expect(acrossTenants.statusCode).toBe(404);
      expect(acrossTenants.json().error.code).toBe('resource_missing');
      const underOwnContainer = await patch(foreign.id, { test_event_code: 'X1' });
      expect(underOwnContainer.statusCode).toBe(404);
      const unknown = await patch('mpx_00000000000000000000000000', { test_event_code: 'X1' });
      expect(unknown.statusCode).toBe(404);
      const targets = await t.app.services.metaPixels.forwardingTargets(otherContainerId);
      expect(targets.find((target) => target.id === foreign.id)).toMatchObject({
        accessToken: TOKEN,
        testEventCode: null,
      });
    });

    it('refuses a member key with 403 insufficient_role', async () => {
      const pixel = await createPixel('9600000005', ownContainerId, mine);
      const member = await t.keys.create(mine.tenantId, { name: 'reader', role: 'member' });
      const refused = await patch(pixel.id, { test_event_code: 'X1' }, { ...mine, token: member.token });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_role');
    });
  });

  describe('deleteMetaPixel · DELETE /api/containers/{id}/meta-pixels/{pixel}/', () => {
    it('removes the pixel with its token and delivery records', async () => {
      const pixel = await createPixel('9300000001');
      await t.app.services.metaPixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [{ eventId: 'e1', eventName: 'PageView' }],
        status: 'delivered',
        httpStatus: 200,
        error: null,
      });
      const deleted = await t.inject({
        method: 'DELETE',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/`,
        token: owner.token,
      });
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json().id).toBe(pixel.id);
      const gone = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/`,
        token: owner.token,
      });
      expect(gone.statusCode).toBe(404);
      expect(
        await column(`select count(*)::int as value from meta_event_deliveries where meta_pixel_id = '${pixel.id}'`),
      ).toBe(0);
      expect((await t.app.services.metaPixels.forwardingTargets(containerId)).map((target) => target.id)).not.toContain(
        pixel.id,
      );
    });

    it("answers 404 for another tenant's pixel and leaves it in place", async () => {
      const foreign = await createPixel('9300000002', otherContainerId, other);
      const refused = await t.inject({
        method: 'DELETE',
        url: `/api/containers/${otherContainerId}/meta-pixels/${foreign.id}/`,
        token: owner.token,
      });
      expect(refused.statusCode).toBe(404);
      const still = await t.inject({
        method: 'GET',
        url: `/api/containers/${otherContainerId}/meta-pixels/${foreign.id}/`,
        token: other.token,
      });
      expect(still.statusCode).toBe(200);
    });
  });

  describe('listMetaPixelDeliveries · GET /api/containers/{id}/meta-pixels/{pixel}/deliveries/', () => {
    const graphError = {
      message: 'Invalid parameter',
      type: 'OAuthException',
      code: 100,
      error_subcode: 2804003,
      fbtrace_id: 'AbC123',
    };

    it('shows each event’s status, attempts and the Graph error, as the runtime recorded them', async () => {
      const pixel = await createPixel('9400000001');
      const pixels = t.app.services.metaPixels;
      await pixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [
          { eventId: 'ev-1', eventName: 'Purchase' },
          { eventId: 'ev-2', eventName: 'PageView' },
        ],
        status: 'retrying',
        httpStatus: 500,
        error: { ...graphError, message: 'An unexpected error has occurred', code: 2, error_subcode: null },
      });
      await pixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [{ eventId: 'ev-1', eventName: 'Purchase' }],
        status: 'delivered',
        httpStatus: 200,
        error: null,
      });
      await pixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [{ eventId: 'ev-3', eventName: 'Lead' }],
        status: 'failed',
        httpStatus: 400,
        error: graphError,
      });

      const list = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/deliveries/`,
        token: owner.token,
      });
      expect(list.statusCode, list.body).toBe(200);
      const byId = Object.fromEntries(
        list.json().results.map((delivery: { event_id: string }) => [delivery.event_id, delivery]),
      );
      expect(list.json().count).toBe(3);
      expect(byId['ev-1']).toMatchObject({
        event_name: 'Purchase',
        status: 'delivered',
        attempts: 2,
        http_status: 200,
        error: null,
      });
      expect(byId['ev-2']).toMatchObject({ status: 'retrying', attempts: 1, http_status: 500, error: { code: 2 } });
      expect(byId['ev-3']).toEqual({
        event_id: 'ev-3',
        event_name: 'Lead',
        status: 'failed',
        attempts: 1,
        http_status: 400,
        error: graphError,
        first_attempt_at: expect.any(String),
        last_attempt_at: expect.any(String),
      });

      const failed = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/deliveries/?status=failed`,
        token: owner.token,
      });
      expect(failed.json().results.map((delivery: { event_id: string }) => delivery.event_id)).toEqual(['ev-3']);
    });

    it('counts an event sent twice in one request once, and skips records of a pixel deleted meanwhile', async () => {
      const pixel = await createPixel('9400000002');
      await t.app.services.metaPixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [
          { eventId: 'dup', eventName: 'PageView' },
          { eventId: 'dup', eventName: 'PageView' },
        ],
        status: 'delivered',
        httpStatus: 200,
        error: null,
      });
      await expect(
        t.app.services.metaPixels.recordDeliveries({
          metaPixelId: 'mpx_00000000000000000000000000',
          events: [{ eventId: 'x', eventName: 'PageView' }],
          status: 'failed',
          httpStatus: 400,
          error: graphError,
        }),
      ).resolves.toBeUndefined();
      const list = await t.inject({
        method: 'GET',
        url: `/api/containers/${containerId}/meta-pixels/${pixel.id}/deliveries/`,
        token: owner.token,
      });
      expect(list.json().results).toEqual([expect.objectContaining({ event_id: 'dup', attempts: 1 })]);
    });

    it("answers 404 for another tenant's pixel", async () => {
      const foreign = await createPixel('9400000003', otherContainerId, other);
      const refused = await t.inject({
        method: 'GET',
        url: `/api/containers/${otherContainerId}/meta-pixels/${foreign.id}/deliveries/`,
        token: owner.token,
      });
      expect(refused.statusCode).toBe(404);
    });
  });

  describe('MetaPixelService for the runtime', () => {
    it("publishes meta_pixels with the container id when a container's pixels change, for the runtime's cache", async () => {
      const container = await createContainer(owner);
      const published: Array<{ kind: string; id: string }> = [];
      t.app.services.invalidations.subscribe((invalidation) => published.push(invalidation));
      const changes = () => published.filter((invalidation) => invalidation.kind === META_PIXELS_CHANGED);
      const pixel = await createPixel('9500000009', container);
      expect(changes()).toContainEqual({ kind: META_PIXELS_CHANGED, id: container });
      published.length = 0;
      await t.inject({
        method: 'PATCH',
        url: `/api/containers/${container}/meta-pixels/${pixel.id}/`,
        token: owner.token,
        payload: { test_event_code: 'TEST1' },
      });
      expect(changes()).toContainEqual({ kind: META_PIXELS_CHANGED, id: container });
      published.length = 0;
      await t.inject({
        method: 'DELETE',
        url: `/api/containers/${container}/meta-pixels/${pixel.id}/`,
        token: owner.token,
      });
      // Published to this instance's subscribers synchronously (others hear it through LISTEN).
      expect(changes()).toContainEqual({ kind: META_PIXELS_CHANGED, id: container });
      expect(new Set(changes().map((invalidation) => invalidation.id))).toEqual(new Set([container]));
    });

    it('opens the access tokens of a container’s pixels, and leaves out one sealed under another key', async () => {
      const container = await createContainer(owner);
      const pixel = await createPixel('9500000001', container);
      const targets = await t.app.services.metaPixels.forwardingTargets(container);
      expect(targets).toEqual([{ id: pixel.id, pixelId: '9500000001', accessToken: TOKEN, testEventCode: null }]);

      const otherKey = new MetaPixelService(
        { database: t.database, containers: t.app.services.containers, invalidations: t.app.services.invalidations },
        { secrets: new SecretBox(randomBytes(32)) },
      );
      const errors: unknown[] = [];
      expect(await otherKey.forwardingTargets(container, (error) => errors.push(error))).toEqual([]);
      expect(String(errors[0])).toContain(pixel.id);
    });

    it('prunes delivery records last sent before a time', async () => {
      const pixel = await createPixel('9500000002');
      await t.app.services.metaPixels.recordDeliveries({
        metaPixelId: pixel.id,
        events: [{ eventId: 'old', eventName: 'PageView' }],
        status: 'delivered',
        httpStatus: 200,
        error: null,
      });
      expect(await t.app.services.metaPixels.pruneDeliveries(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
      expect(
        await column(`select count(*)::int as value from meta_event_deliveries where meta_pixel_id = '${pixel.id}'`),
      ).toBe(0);
    });
  });
});

describe("a pixel's changed token and test event code, on the built-in runtime's next event", () => {
  const PIXEL_ID = '1234567890123456';
  const NEW_TOKEN = 'EAAGm0PX4ZCpsBArenewedTOKEN5678wxyz';
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let token: string;

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi();
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      secretsKey: randomBytes(32),
      meta: {
        graphOrigin: graph.origin,
        graphVersion: 'v26.0',
        timeoutMs: 2000,
        deliveryRetentionDays: 30,
        batchWindowMs: 0,
      },
      runtime: testRuntime(google.origin),
    }));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await google?.close();
    await graph?.close();
  });

  /** Sends an event to the container the way a site's server would and returns what the Graph API received. */
  async function sendEvent(host: string, eventId: string) {
    const response = await request(`${gatewayUrl}/events`, {
      method: 'POST',
      headers: { host, 'content-type': 'application/json' },
      body: JSON.stringify({ event_name: 'generate_lead', event_id: eventId }),
    });
    expect(response.statusCode, await response.body.text()).toBe(202);
    await t.app.services.runtime.idle();
    const sent = graph.received.filter(
      (received) => (received.params.data as Array<{ event_id: string }>)[0]?.event_id === eventId,
    );
    expect(sent).toHaveLength(1);
    return sent[0];
  }

  it('sends the next event with the new token, then with the test event code set and cleared', async () => {
    const container = await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: ['G-SHOP1234'] } });
    const created = await t.inject({
      method: 'POST',
      url: `/api/containers/${container.id}/meta-pixels/`,
      token,
      payload: { pixel_id: PIXEL_ID, access_token: TOKEN },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pixelUrl = `/api/containers/${container.id}/meta-pixels/${created.json().id}/`;
    // The runtime has read (and cached) the pixel with its first token before the change.
    expect((await sendEvent(container.default_hostname, 'lead-old-token')).params.access_token).toBe(TOKEN);

    const replaced = await t.inject({ method: 'PATCH', url: pixelUrl, token, payload: { access_token: NEW_TOKEN } });
    expect(replaced.statusCode, replaced.body).toBe(200);
    const withNewToken = await sendEvent(container.default_hostname, 'lead-new-token');
    expect(withNewToken.pixelId).toBe(PIXEL_ID);
    expect(withNewToken.params.access_token).toBe(NEW_TOKEN);
    expect(withNewToken.params).not.toHaveProperty('test_event_code');

    await t.inject({ method: 'PATCH', url: pixelUrl, token, payload: { test_event_code: 'TEST0815' } });
    expect((await sendEvent(container.default_hostname, 'lead-test-code')).params).toMatchObject({
      access_token: NEW_TOKEN,
      test_event_code: 'TEST0815',
    });
    await t.inject({ method: 'PATCH', url: pixelUrl, token, payload: { test_event_code: null } });
    expect((await sendEvent(container.default_hostname, 'lead-no-code')).params).not.toHaveProperty('test_event_code');
  });
});
