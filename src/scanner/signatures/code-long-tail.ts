import type { CodeRule } from './code-rule.js';

/**
 * Ids in the documented install snippets of widely used analytics, marketing and ad tools that third-party-web knows
 * only by host. Anchored like every code rule (see code.ts).
 */

const q = `["']`;
const ID = '(?<![\\w$])';
const HOST = '(?<![\\w-])';

export const LONG_TAIL_CODE_RULES: CodeRule[] = [
  {
    key: 'mixpanel',
    pattern: new RegExp(`${ID}mixpanel\\.init\\(\\s*${q}([0-9a-f]{32})${q}`, 'g'),
    hasId: true,
    detail: (m) => `mixpanel.init('${m[1]}')`,
    example: "mixpanel.init('0123456789abcdef0123456789abcdef', { track_pageview: true });",
    counterexample: "mymixpanel.init('0123456789abcdef0123456789abcdef');",
  },
  {
    key: 'amplitude',
    pattern: new RegExp(`${ID}amplitude(?:\\.getInstance\\(\\))?\\.init\\(\\s*${q}([0-9a-f]{32})${q}`, 'g'),
    hasId: true,
    detail: (m) => `amplitude.init('${m[1]}')`,
    example: "amplitude.init('fedcba9876543210fedcba9876543210');",
    counterexample: "notamplitude.init('fedcba9876543210fedcba9876543210');",
  },
  {
    key: 'heap',
    pattern: new RegExp(`${ID}heap\\.load\\(\\s*${q}?(\\d{6,12})${q}?`, 'g'),
    hasId: true,
    detail: (m) => `heap.load('${m[1]}')`,
    example: 'heap.load("1234567890");',
    counterexample: 'minheap.load("1234567890");',
  },
  {
    key: 'fullstory',
    pattern: new RegExp(`${ID}_fs_org${q}?\\]?\\s*=\\s*${q}([A-Za-z0-9-]{4,24})${q}`, 'g'),
    hasId: true,
    detail: (m) => `FullStory org ${m[1]}`,
    example: "window['_fs_org'] = 'o-1ABCDE-na1';",
    counterexample: "window['my_fs_org'] = 'o-1ABCDE-na1';",
  },
  {
    key: 'yandex_metrica',
    pattern: new RegExp(`${ID}ym\\(\\s*(\\d{5,12})\\s*,\\s*${q}init${q}`, 'g'),
    hasId: true,
    detail: (m) => `ym(${m[1]}, 'init')`,
    example: 'ym(12345678, "init", { clickmap: true });',
    counterexample: 'gym(12345678, "init");',
  },
  {
    key: 'hubspot',
    pattern: new RegExp(`${HOST}js(?:-[a-z]{2}\\d)?\\.hs-scripts\\.com\\/(\\d{3,10})\\.js`, 'g'),
    hasId: true,
    detail: (m) => `HubSpot tracking code, portal ${m[1]}`,
    example: '<script id="hs-script-loader" src="//js.hs-scripts.com/1234567.js"></script>',
    counterexample: '<script src="//myjs.hs-scripts.com/1234567.js"></script>',
  },
  {
    key: 'criteo',
    when: new RegExp(`${ID}criteo_q\\b`),
    pattern: new RegExp(`${ID}event\\s*:\\s*${q}setAccount${q}\\s*,\\s*account\\s*:\\s*\\[?\\s*${q}?(\\d{3,8})`, 'g'),
    hasId: true,
    detail: (m) => `Criteo OneTag account ${m[1]}`,
    example: 'window.criteo_q = window.criteo_q || []; criteo_q.push({ event: "setAccount", account: 12345 });',
    counterexample: 'window.mycriteo_q = []; mycriteo_q.push({ event: "setAccount", account: 12345 });',
  },
  {
    key: 'taboola',
    pattern: new RegExp(`${ID}_tfa\\.push\\(\\s*\\{[^}]{0,200}?\\bid\\s*:\\s*${q}?(\\d{5,9})`, 'g'),
    hasId: true,
    detail: (m) => `Taboola pixel id ${m[1]}`,
    example: "window._tfa = window._tfa || []; _tfa.push({ notify: 'event', name: 'page_view', id: 1234567 });",
    counterexample: "my_tfa.push({ notify: 'event', name: 'page_view', id: 1234567 });",
  },
  {
    key: 'outbrain',
    pattern: new RegExp(`${ID}OB_ADV_ID\\s*=\\s*${q}([0-9a-f]{20,40})${q}`, 'g'),
    hasId: true,
    detail: (m) => `Outbrain pixel ${m[1]}`,
    example: "var OB_ADV_ID = '00a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';",
    counterexample: "var MY_OB_ADV_ID = '00a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';",
  },
  {
    key: 'intercom',
    when: new RegExp(`${ID}intercomSettings\\b`),
    pattern: new RegExp(`${ID}app_id${q}?\\s*:\\s*${q}([a-z0-9]{6,10})${q}`, 'g'),
    hasId: true,
    detail: (m) => `Intercom app_id ${m[1]}`,
    example: 'window.intercomSettings = { api_base: "https://api-iam.intercom.io", app_id: "abc123de" };',
    counterexample: 'window.intercomSettings = { my_app_id: "abc123de" };',
  },
  {
    key: 'swetrix',
    pattern: new RegExp(`${ID}swetrix\\.init\\(\\s*${q}([A-Za-z0-9]{8,20})${q}`, 'g'),
    hasId: true,
    detail: (m) => `swetrix.init('${m[1]}')`,
    example: "swetrix.init('STEzHcB1rALV', { apiURL: 'https://swetrix.site.test/log' });",
    counterexample: "myswetrix.init('STEzHcB1rALV');",
  },
];
