import { describe, expect, it } from 'vitest';
import { detectBot } from '../../../../../src/gateway/runtime/powerups/bot-detection.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const browser = { 'user-agent': CHROME, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' };

describe('detectBot', () => {
  it('lets a browser request through', () => {
    expect(detectBot(browser)).toEqual({ bot: false, reason: null, evidence: null });
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
