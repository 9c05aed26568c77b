import { WEBHOOK_DEAD_LETTERS, WEBHOOK_DELIVERIES, WebhookService } from '../../../src/modules/webhooks/service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { expectOutboundUrlRules } from '../../helpers/outbound-rules.js';
import { waitFor } from '../../helpers/processes.js';

describe('webhook deliveries over real HTTPS', () => {
  let receiver: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let tenant: { tenantId: string; token: string; keyId: string };
  const state = { receiverFailures: 0 };

  beforeAll(async () => {
    receiver = await startHttpsTarget(() => (state.receiverFailures-- > 0 ? { status: 500 } : { status: 204 }));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      outboundCaCertificates: [receiver.ca],
      runWorkers: false,
      webhooks: { retryBaseMs: 1, maxAttempts: 3, timeoutMs: 2000 },
    });
    tenant = await t.tenantWithKey('business');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const post = (url: string, payload?: object) => t.inject({ method: 'POST', url, token: tenant.token, payload });
  const get = (url: string) => t.inject({ method: 'GET', url, token: tenant.token });

  describe('listWebhookDeliveries · GET /api/webhooks/:id/deliveries/', () => {
    it('retries failed deliveries with backoff and gives up after the last attempt', async () => {
      const hook = (
        await post('/api/webhooks/', { url: receiver.url('/retry'), event_types: ['report.ready'] })
      ).json();
      state.receiverFailures = 2;
      const { id: eventId } = await t.app.services.events.record(
        tenant.tenantId,
        'report.ready',
        { type: 'report', id: 'rpt_test' },
        { report_id: 'rpt_test' },
      );
      await waitFor(
        async () => {
          await t.app.services.jobs.runQueued(WEBHOOK_DELIVERIES);
          const [delivery] = (await get(`/api/webhooks/${hook.id}/deliveries/`)).json().results;
          return delivery.status !== 'pending';
        },
        10_000,
        'delivery to finish',
      );
      const [delivery] = (await get(`/api/webhooks/${hook.id}/deliveries/`)).json().results;
      expect(delivery).toMatchObject({ event_id: eventId, status: 'succeeded', attempts: 3, last_status_code: 204 });

      state.receiverFailures = 10;
      await t.app.services.events.record(
        tenant.tenantId,
        'report.ready',
        { type: 'report', id: 'rpt_failing' },
        { report_id: 'rpt_failing' },
      );
      await waitFor(
        async () => {
          await t.app.services.jobs.runQueued(WEBHOOK_DELIVERIES);
          const [latest] = (await get(`/api/webhooks/${hook.id}/deliveries/`)).json().results;
          return latest.status !== 'pending';
        },
        10_000,
        'delivery to give up',
      );
      const [failed] = (await get(`/api/webhooks/${hook.id}/deliveries/`)).json().results;
      expect(failed).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500, next_attempt_at: null });
      // The job engine kept the exhausted delivery as a dead letter (the API lists it as failed).
      expect(await t.app.services.jobs.unfinished([WEBHOOK_DEAD_LETTERS])).toBe(1);
      state.receiverFailures = 0;
    });
  });

  describe('publishing an event', () => {
    it('records a delivery only together with its job: when the job cannot be queued, no delivery is left behind', async () => {
      const hook = (
        await post('/api/webhooks/', { url: receiver.url('/atomic'), event_types: ['report.ready'] })
      ).json();
      const { database, outbound } = { database: t.database, outbound: t.app.services.outbound };
      const failingQueue = {
        insertIn: async () => {
          throw new Error('the queue refused the job');
        },
      };
      const webhooks = new WebhookService({ database, outbound, jobs: failingQueue }, t.app.services.webhooks.settings);
      const event = {
        id: 'evt_atomic',
        type: 'report.ready' as const,
        created_at: new Date().toISOString(),
        data: { report_id: 'rpt_atomic' },
      };
      await expect(webhooks.publish(tenant.tenantId, event)).rejects.toThrow();
      expect((await get(`/api/webhooks/${hook.id}/deliveries/`)).json().count).toBe(0);
    });
  });
});

describe('webhook URLs in production settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
  });
  afterAll(() => t?.close());

  describe('createWebhook · POST /api/webhooks/', () => {
    it('refuses plain http and private addresses', async () => {
      await expectOutboundUrlRules(t, '/api/webhooks/', (url) => ({ url, event_types: ['monitor.down'] }), 'url');
    });
  });
});
