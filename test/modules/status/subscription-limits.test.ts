import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { call, person } from '../../helpers/people.js';
import { type ReceivedMail, startSmtpServer } from '../../helpers/smtp.js';

/** Anonymous requests from one address: the per-address request limit is tested elsewhere. */
const UNLIMITED = { anonymousRateLimitPerMinute: 100_000 };
const subscribe = (t: TestApp, payload: object, host = 'status.test') =>
  t.inject({ method: 'POST', url: '/api/status/subscriptions/', payload, headers: { host } });

/** A webhook receiver on loopback, reachable under any path. */
async function startReceiver() {
  const server = http.createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.each(backends)(
  'links in mail come from PUBLIC_BASE_URL only; anonymous subscriptions are capped (%s)',
  (backend) => {
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    /** PUBLIC_BASE_URL set. */
    let configured: TestApp;
    /** PUBLIC_BASE_URL unset, SMTP configured. */
    let unconfigured: TestApp;
    let marks = 0;

    /**
     * Every mail the SMTP server got until a marker mail (a fresh address's confirmation, sent after what is being
     * counted): SMTP delivers in order, so what came before the marker is everything the earlier requests sent.
     */
    async function mailsBeforeMarker(): Promise<ReceivedMail[]> {
      const marker = `marker${++marks}@example.com`;
      expect((await subscribe(configured, { email: marker })).statusCode).toBe(202);
      const mails: ReceivedMail[] = [];
      for (let mail = await smtp.next(); !mail.to.includes(marker); mail = await smtp.next()) mails.push(mail);
      return mails;
    }
    const tokenIn = (mail: ReceivedMail) => /\/status\/confirm\?token=([\w-]+)/.exec(mail.text)![1];
    /** As if the last confirmation mail to `email` went out `minutes` ago. */
    const age = (email: string, minutes: number) =>
      configured.database.db.execute(
        sql`update status_subscriptions set confirmation_sent_at = now() - make_interval(mins => ${minutes}) where target = ${email}`,
      );

    beforeAll(async () => {
      smtp = await startSmtpServer();
      receiver = await startReceiver();
      const mail = { smtpUrl: smtp.url, from: 'Tagport <status@tagport.test>' };
      configured = await startTestApp(backend, {
        ...UNLIMITED,
        allowPrivateNetworks: true,
        mail,
        publicBaseUrl: 'https://tagport.example',
      });
      unconfigured = await startTestApp(backend, { ...UNLIMITED, mail, publicBaseUrl: null });
    }, 60_000);
    afterAll(async () => {
      await configured?.close();
      await unconfigured?.close();
      await smtp?.close();
      await receiver?.close();
    });

    it('builds the confirmation link from PUBLIC_BASE_URL, whatever Host the request sent', async () => {
      expect((await subscribe(configured, { email: 'host@example.com' }, 'evil.test')).statusCode).toBe(202);
      const [mail] = await mailsBeforeMarker();
      expect(mail.text).toContain('https://tagport.example/status/confirm?token=');
      expect(mail.text + mail.html).not.toContain('evil.test');
    });

    it('without PUBLIC_BASE_URL refuses email subscriptions clearly, sends nothing, and offers no email form', async () => {
      const refused = await subscribe(unconfigured, { email: 'nobase@example.com' }, 'evil.test');
      expect(refused.statusCode).toBe(503);
      expect(refused.json().error).toMatchObject({ code: 'email_subscriptions_unavailable' });
      expect(refused.json().error.message).toContain('PUBLIC_BASE_URL');
      const form = await unconfigured.inject({
        method: 'POST',
        url: '/status/subscribe',
        headers: { host: 'evil.test', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=nobase%40example.com',
      });
      expect(form.statusCode).toBe(503);
      expect(form.body).toContain('PUBLIC_BASE_URL');
      expect((await unconfigured.inject({ method: 'GET', url: '/status' })).body).not.toContain('name="email"');
      expect((await configured.inject({ method: 'GET', url: '/status' })).body).toContain('name="email"');
      expect(await mailsBeforeMarker()).toEqual([]);
    });

    it('without PUBLIC_BASE_URL creates an invitation but mails no link built from the Host', async () => {
      const owner = await person(unconfigured);
      const response = await call(unconfigured, owner, 'POST', '/api/invitations/', {
        email: 'invitee@example.com',
        role: 'member',
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ email_sent: false });
      expect(await mailsBeforeMarker()).toEqual([]);
    });

    it('sends one confirmation for 70 subscriptions of one address; the link of that one mail keeps working', async () => {
      const email = 'flood@example.com';
      const answers = await Promise.all(Array.from({ length: 70 }, () => subscribe(configured, { email })));
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(70).fill(202));
      const mails = await mailsBeforeMarker();
      expect(mails.map((mail) => mail.to)).toEqual([[email]]);
      const confirmed = await configured.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token: tokenIn(mails[0]) },
      });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
    });

    it('sends a fresh link after the cool-down, and at most 3 confirmation mails per address a day', async () => {
      const email = 'patient@example.com';
      await subscribe(configured, { email });
      const sent = [...(await mailsBeforeMarker())];
      for (let round = 0; round < 4; round++) {
        await age(email, 11);
        await subscribe(configured, { email });
        sent.push(...(await mailsBeforeMarker()));
      }
      expect(sent).toHaveLength(3);
      const [first, , last] = sent;
      const confirmFirst = await configured.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token: tokenIn(first) },
      });
      expect(confirmFirst.statusCode).toBe(404);
      const confirmLast = await configured.inject({
        method: 'POST',
        url: '/api/status/subscriptions/confirm/',
        payload: { token: tokenIn(last) },
      });
      expect(confirmLast.statusCode).toBe(200);
    });

    it('caps webhook subscriptions per host: 3, and a repeat of one of them is re-used', async () => {
      for (const path of ['/a', '/b', '/c']) {
        const answer = await subscribe(configured, { webhook_url: receiver.url(path) });
        expect(answer.statusCode, answer.body).toBe(202);
      }
      const again = await subscribe(configured, { webhook_url: receiver.url('/b') });
      expect(again.statusCode).toBe(202);
      expect(again.json().unsubscribe_token).toBeNull();
      const fourth = await subscribe(configured, { webhook_url: receiver.url('/d') });
      expect(fourth.statusCode).toBe(429);
      expect(fourth.json().error.code).toBe('webhook_subscription_limit');
      const rows = await configured.database.db.execute(
        sql`select count(*)::int as n from status_subscriptions where kind = 'webhook'`,
      );
      expect((rows as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(3);
    });
  },
);
