import { isbotMatch } from 'isbot';
import { describe, expect, it } from 'vitest';
import { detectBot, PLAIN_BROWSER } from '../../../../../src/gateway/runtime/powerups/bot-detection.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const browser = { 'user-agent': CHROME, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8', 'sec-fetch-mode': 'no-cors' };

describe('detectBot', () => {
  it('lets a browser request through with score 0', () => {
    expect(detectBot(browser)).toEqual({ bot: false, score: 0, reason: null, evidence: null });
  });

  it.each([
    ['no user agent', { 'accept-language': 'en' }, 100, true],
    ['Googlebot', { ...browser, 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' }, 100, true],
    ['an automation header', { ...browser, 'x-selenium': '1' }, 90, true],
    ['no Accept-Language', { 'user-agent': CHROME, 'sec-fetch-mode': 'cors' }, 80, true],
    ['Chrome 131 without fetch metadata', { ...browser, 'sec-fetch-mode': undefined }, 60, false],
    ['Firefox 133 without fetch metadata', { 'user-agent': FIREFOX, 'accept-language': 'en' }, 60, false],
    [
      'Firefox 133 with fetch metadata',
      { 'user-agent': FIREFOX, 'accept-language': 'en', 'sec-fetch-mode': 'cors' },
      0,
      false,
    ],
    [
      'Chrome 79, before fetch metadata',
      { 'user-agent': CHROME.replace('131.0', '79.0'), 'accept-language': 'en' },
      0,
      false,
    ],
  ])("scores %s on Stape's scale (above 75: a bot)", (_name, headers, score, bot) => {
    expect(detectBot(headers)).toMatchObject({ score, bot });
  });

  it.each([
    ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    ['curl', 'curl/8.5.0'],
    ['python-requests', 'python-requests/2.32.3'],
    ['AhrefsBot', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)'],
  ])('flags %s by its user agent (isbot)', (_name, userAgent) => {
    expect(detectBot({ ...browser, 'user-agent': userAgent })).toMatchObject({
      bot: true,
      reason: 'known_bot_user_agent',
    });
  });

  it('flags headless Chrome and names what gave it away', () => {
    const userAgent = CHROME.replace('Chrome/', 'HeadlessChrome/');
    expect(detectBot({ ...browser, 'user-agent': userAgent })).toEqual({
      bot: true,
      score: 100,
      reason: 'headless_browser',
      evidence: 'HeadlessChrome',
    });
  });

  it('flags a request without a user agent, or with an empty one', () => {
    expect(detectBot({ 'accept-language': 'en' })).toMatchObject({ bot: true, reason: 'missing_user_agent' });
    expect(detectBot({ 'user-agent': '  ', 'accept-language': 'en' })).toMatchObject({
      bot: true,
      reason: 'missing_user_agent',
    });
  });

  it('flags a browser user agent without Accept-Language, which every browser sends', () => {
    expect(detectBot({ 'user-agent': CHROME })).toEqual({
      bot: true,
      score: 80,
      reason: 'missing_accept_language',
      evidence: null,
    });
  });

  it('flags automation headers', () => {
    expect(detectBot({ ...browser, 'x-puppeteer': '1' })).toMatchObject({
      bot: true,
      reason: 'automation_header',
      evidence: 'x-puppeteer',
    });
  });

  it('reads the first value of a repeated header', () => {
    expect(detectBot({ 'user-agent': [CHROME, 'curl/8'], 'accept-language': ['en'] }).bot).toBe(false);
  });
});

/** Every form PLAIN_BROWSER admits, each with a few version numbers: what skips isbot's pattern. */
function plainBrowserAgents(): string[] {
  const versions = ['1', '9', '10', '131', '999999'];
  const webkitPlatforms = versions.flatMap((v) => [
    `Windows NT ${v}.0; Win64; x64`,
    `Windows NT 6.${v}`,
    `Macintosh; Intel Mac OS X 10_15_${v}`,
    `Macintosh; Intel Mac OS X ${v}_0`,
    'X11; Linux x86_64',
    `Linux; Android ${v}; K`,
    `Linux; Android ${v}.0.1; K`,
    `iPhone; CPU iPhone OS ${v}_5_1 like Mac OS X`,
    `iPad; CPU OS ${v}_0 like Mac OS X`,
  ]);
  const webkitBrowsers = versions.flatMap((v) => [
    `Chrome/${v}.0.0.0`,
    `Chrome/${v}.0.0.0 Mobile`,
    `Version/${v}.5`,
    `Version/${v}.0.1 Mobile/15E148`,
    `Version/${v} Mobile/21F90a`,
  ]);
  const webkit = webkitPlatforms.flatMap((platform) =>
    webkitBrowsers.flatMap((browser) => [
      `Mozilla/5.0 (${platform}) AppleWebKit/537.36 (KHTML, like Gecko) ${browser} Safari/537.36`,
      `Mozilla/5.0 (${platform}) AppleWebKit/605.1.15 (KHTML, like Gecko) ${browser} Safari/604.1 Edg/131.0.2903.86`,
    ]),
  );
  const geckoPlatforms = versions.flatMap((v) => [
    `Windows NT ${v}.0; Win64; x64`,
    `Macintosh; Intel Mac OS X 10.${v}`,
    'X11; Linux x86_64',
    'X11; Ubuntu; Linux x86_64',
    `Android ${v}; Mobile`,
  ]);
  const gecko = geckoPlatforms.flatMap((platform) =>
    versions.flatMap((v) => [
      `Mozilla/5.0 (${platform}; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`,
      `Mozilla/5.0 (${platform}; rv:${v}.0) Gecko/${v}.0 Firefox/${v}.0`,
    ]),
  );
  return [...webkit, ...gecko];
}

describe("current browsers' plain user agents", () => {
  const agents = plainBrowserAgents();

  it('are all plain, and none is a bot by isbot: skipping its pattern changes no verdict', () => {
    expect(agents.length).toBeGreaterThan(2_000);
    expect(agents.filter((agent) => !PLAIN_BROWSER.test(agent))).toEqual([]);
    expect(agents.filter((agent) => isbotMatch(agent) !== null)).toEqual([]);
  });

  it.each([
    [
      'Googlebot for smartphones',
      `${CHROME.replace('Windows NT 10.0; Win64; x64', 'Linux; Android 6.0.1; Nexus 5X Build/MMB29P')} (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`,
    ],
    [
      'Googlebot on a reduced Android UA',
      `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`,
    ],
    [
      'Googlebot desktop',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.0.0 Safari/537.36',
    ],
    [
      'bingbot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    ],
    ['Lighthouse', `${CHROME} Chrome-Lighthouse`],
    ['a device named like a bot', CHROME.replace('Windows NT 10.0; Win64; x64', 'Linux; Android 10; Robot')],
    [
      'a Safari build that spells bot',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/BOT Safari/604.1',
    ],
    ['headless Chrome', CHROME.replace('Chrome/', 'HeadlessChrome/')],
  ])('leave out what only looks like one: %s', (_name, userAgent) => {
    expect(PLAIN_BROWSER.test(userAgent)).toBe(false);
    expect(detectBot({ ...browser, 'user-agent': userAgent }).bot).toBe(true);
  });
});
