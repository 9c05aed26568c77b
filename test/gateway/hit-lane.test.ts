import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { startGoogleFixture, until } from '../helpers/google-fixture.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) TagportTest/1.0';
const HIT = '/g/collect?v=2&tid=G-SHOP1234&cid=111.222&en=page_view&dl=https%3A%2F%2Fshop.example%2F';
const VARIANTS = {
  plain: {},
  powered: {
    bot_detection: { mode: 'mark' },
    cookie_keeper: { enabled: true, cookies: ['_ga'] },
    click_id_restorer: { enabled: true },
    anonymizer: { ga4: { ip: 'truncate' } },
  },
  bots_dropped: { bot_detection: { mode: 'drop' } },
  // The geo lookup makes the visit a promise: the lane answers after it.
  geo: { geo_headers: { enabled: true } },
} as const;
type Variant = keyof typeof VARIANTS;

/** A Tagport whose gateway serves GA4 hits with the hit lane (GATEWAY_HIT_LANE) on or off, and its own Google. */
async function startSide(hitLane: boolean) {
  const google = await startGoogleFixture();
  const { t, gatewayUrl } = await startAppWithGateway('pglite', {
    runtime: testRuntime(google.origin),
    gateway: { hitLane },
  });
  const { token } = await t.tenantWithKey('business');
  const hosts = {} as Record<Variant | 'stopped', string>;
  for (const [variant, settings] of Object.entries(VARIANTS))
    hosts[variant as Variant] = (
      await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: ['G-SHOP1234'], ...settings } })
    ).default_hostname;
  const stopped = await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: ['G-SHOP1234'] } });
  await t.inject({ method: 'POST', url: `/api/containers/${stopped.id}/stop/`, token });
  await t.app.services.containerWorker.idle();
  hosts.stopped = stopped.default_hostname;
  // How often the runtime's general entry (Node's http path) served a request.
  const viaNode = { count: 0 };
  const runtime = t.app.services.runtime;
  const handle = runtime.handle.bind(runtime);
  runtime.handle = (...args) => {
    viaNode.count++;
    return handle(...args);
  };
  return { t, gatewayUrl, google, hosts, viaNode };
}
type Side = Awaited<ReturnType<typeof startSide>>;

interface Case {
  variant: Variant | 'stopped' | 'unknown';
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  forwards: number;
  /** Served by the lane when it is on: a GET hit for a running builtin container. */
  lane: boolean;
}

const CASES: Record<string, Case> = {
  'a plain hit': { variant: 'plain', path: HIT, forwards: 1, lane: true },
  'a returning visitor from a page with CORS': {
    variant: 'plain',
    path: HIT,
    headers: { cookie: 'FPID=333.444; other=1', origin: 'https://shop.example' },
    forwards: 1,
    lane: true,
  },
  'a hit with every request power-up': {
    variant: 'powered',
    path: `${HIT.replace('shop.example%2F', 'shop.example%2F%3Fgclid%3Dabc123')}&ep.page=1`,
    headers: { cookie: '_ga=GA1.1.5.6', 'x-forwarded-for': '203.0.113.9' },
    forwards: 1,
    lane: true,
  },
  'a bot, dropped': {
    variant: 'bots_dropped',
    path: HIT,
    headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' },
    forwards: 0,
    lane: true,
  },
  'a hit after a geo lookup': { variant: 'geo', path: HIT, forwards: 1, lane: true },
  "another property's hit": {
    variant: 'plain',
    path: HIT.replace('G-SHOP1234', 'G-OTHER999'),
    forwards: 0,
    lane: true,
  },
  'a collect path with nothing after it': { variant: 'plain', path: '/g/collect', forwards: 0, lane: true },
  'a path that only starts like it': { variant: 'plain', path: '/g/collect/x?v=2', forwards: 0, lane: false },
  'a POST (always Node)': {
    variant: 'plain',
    path: '/g/collect?v=2&tid=G-SHOP1234&cid=5.6',
    method: 'POST',
    body: 'en=purchase&epn.value=10',
    forwards: 1,
    lane: false,
  },
  'a stopped container': { variant: 'stopped', path: HIT, forwards: 0, lane: false },
  'an unknown host': { variant: 'unknown', path: HIT, forwards: 0, lane: false },
};

/** Sends the case through one side: its answer (without the Date) and the GA4 hits it forwarded. */
async function through(side: Side, { variant, path, method, headers, body, forwards }: Case) {
  const host = variant === 'unknown' ? 'nobody.containers.tagport.test' : side.hosts[variant];
  const before = side.google.hits.length;
  const response = await request(`${side.gatewayUrl}${path}`, {
    method: method ?? 'GET',
    headers: { host, 'user-agent': UA, ...headers },
    body,
  });
  const { date, ...answerHeaders } = response.headers;
  expect(date).toBeTruthy();
  const text = await response.body.text();
  await until(() => side.google.hits.length >= before + forwards);
  await side.t.app.services.runtime.idle();
  const sent = side.google.hits
    .slice(before)
    .map((hit) => ({ method: hit.method, userAgent: hit.userAgent, params: Object.fromEntries(hit.params) }));
  return { status: response.statusCode, headers: answerHeaders, body: text, sent };
}

describe('the hit lane answers and forwards every GA4 hit as Node http serves it (GATEWAY_HIT_LANE on and off)', () => {
  let lane: Side;
  let node: Side;

  beforeAll(async () => {
    lane = await startSide(true);
    node = await startSide(false);
  }, 120_000);
  afterAll(async () => {
    for (const side of [lane, node]) {
      await side?.t.close();
      await side?.google.close();
    }
  });

  it.each(Object.entries(CASES))('%s', async (_name, testCase) => {
    const viaNodeBefore = [lane.viaNode.count, node.viaNode.count];
    const [onLane, onNode] = [await through(lane, testCase), await through(node, testCase)];
    expect(onLane).toEqual(onNode);
    expect(onLane.sent).toHaveLength(testCase.forwards);
    // With the lane on, a GET hit for a builtin container never reaches the runtime through Node's http objects.
    const [laneViaNode, nodeViaNode] = [lane.viaNode.count - viaNodeBefore[0], node.viaNode.count - viaNodeBefore[1]];
    if (testCase.lane) expect([laneViaNode, nodeViaNode]).toEqual([0, 1]);
    else expect(laneViaNode).toBe(nodeViaNode);
  });
});
