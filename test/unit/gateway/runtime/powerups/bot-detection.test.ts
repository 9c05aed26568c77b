import { describe, expect, it } from 'vitest';
import { detectBot } from '../../../../../src/gateway/runtime/powerups/bot-detection.js';

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
