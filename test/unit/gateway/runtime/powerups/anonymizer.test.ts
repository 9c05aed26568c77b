import { describe, expect, it } from 'vitest';
import {
  type AnonymizerRules,
  anonymize,
  anonymizeGa4Params,
  truncateIp,
} from '../../../../../src/gateway/runtime/powerups/anonymizer.js';
import {
  containsEmailAddress,
  isPersonalDataName,
  isUserIdName,
} from '../../../../../src/gateway/runtime/powerups/personal-data.js';
import type { RuntimeEvent } from '../../../../../src/gateway/runtime/types.js';
import { testEvent, testVisitor } from '../fixtures.js';

const event = testEvent({
  clientId: '1.2',
  eventId: 'e1',
  time: 1_795_000_000_000,
  pageUrl: 'https://shop.example.com/?gclid=abc&fbclid=IwAR0&utm_source=ads',
  referrer: 'https://www.google.com/?wbraid=w1',
  params: { gclid: 'abc', section: 'home' },
  items: [{ id: 'SKU-1' }],
});
const visitor = testVisitor({
  ip: '203.0.113.77',
  userAgent: 'Mozilla/5.0 Safari',
  cookies: { _ga: 'GA1.1.1.2', _fbc: 'fb.1.1.IwAR0', _fbp: 'fb.1.1.2', _tp_gclid: 'abc', _gcl_aw: 'GCL.1.abc' },
  country: 'DE',
});

describe('truncateIp', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0'],
    ['::ffff:203.0.113.77', '203.0.113.0'],
    ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3::'],
    ['2001:DB8:85A3::1', '2001:db8:85a3::'],
    ['2001:db8::1', '2001:db8::'],
    ['::1', '::'],
    ['not-an-ip', ''],
  ])('truncates %s to %s', (ip, truncated) => {
    expect(truncateIp(ip)).toBe(truncated);
  });
});

describe('anonymize', () => {
  it('keeps everything with keep rules, without copying', () => {
    const kept = anonymize(event, visitor, { ip: 'keep', user_agent: 'keep', click_ids: 'keep' });
    expect(kept.event).toBe(event);
    expect(kept.visitor).toBe(visitor);
  });

  it('copies what it changes: a rule that keeps the parameters but truncates the IP leaves the inputs as they were', () => {
    const before = structuredClone({ event, visitor });
    const out = anonymize(event, visitor, { ip: 'truncate', user_agent: 'keep', click_ids: 'keep' });
    expect(out.visitor).not.toBe(visitor);
    expect(out.event).toEqual(event);
    expect({ event, visitor }).toEqual(before);
  });

  it('truncates the IP and drops the user agent', () => {
    const { visitor: out } = anonymize(event, visitor, { ip: 'truncate', user_agent: 'drop', click_ids: 'keep' });
    expect(out.ip).toBe('203.0.113.0');
    expect(out.userAgent).toBe('');
  });

  it('drops the IP', () => {
    expect(anonymize(event, visitor, { ip: 'drop', user_agent: 'keep', click_ids: 'keep' }).visitor.ip).toBe('');
  });

  it('drops click ids from the page URL, referrer, parameters and cookies, and keeps the rest', () => {
    const out = anonymize(event, visitor, { ip: 'keep', user_agent: 'keep', click_ids: 'drop' });
    expect(out.event.pageUrl).toBe('https://shop.example.com/?utm_source=ads');
    expect(out.event.referrer).toBe('https://www.google.com/');
    expect(out.event.params).toEqual({ section: 'home' });
    expect(out.visitor.cookies).toEqual({ _ga: 'GA1.1.1.2', _fbp: 'fb.1.1.2' });
  });

  it('never changes its inputs, so each vendor starts from the original', () => {
    const before = structuredClone({ event, visitor });
    anonymize(event, visitor, { ip: 'drop', user_agent: 'drop', click_ids: 'drop' });
    expect({ event, visitor }).toEqual(before);
  });
});

const KEEP: AnonymizerRules = { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' };

describe('what counts as the user id and as personal data', () => {
  it.each([
    ['user_id', true],
    ['userId', true],
    ['uid', true],
    ['external_id', true],
    ['user_data.external_id', true],
    ['user_id_hash', false],
    ['customer_type', false],
    ['guid', false],
  ])('isUserIdName(%s) is %s', (name, expected) => {
    expect(isUserIdName(name)).toBe(expected);
  });

  it.each([
    ['user_email', true],
    ['email', true],
    ['customerEmail', true],
    ['e_mail', true],
    ['phone', true],
    ['phone_number', true],
    ['billing.phone', true],
    ['user_data', true],
    ['user_data.email_address', true],
    ['user_data.address.first_name', true],
    ['em', true],
    ['ph', true],
    ['first_name', true],
    ['lastName', true],
    ['street', true],
    ['postal_code', true],
    ['zip', true],
    ['date_of_birth', true],
    ['item_name', false],
    ['page_title', false],
    ['zipper_size', false],
    ['addresses_count', false],
    ['section', false],
    ['currency', false],
    ['emphasis', false],
  ])('isPersonalDataName(%s) is %s', (name, expected) => {
    expect(isPersonalDataName(name)).toBe(expected);
  });

  it.each([
    ['jane.doe+shop@example.com', true],
    ['Contact: jane@example.co.uk', true],
    ['https://shop.example.com/?ref=jane@example.com', true],
    ['@handle', false],
    ['a@b', false],
    ['42', false],
    [42, false],
  ])('containsEmailAddress(%j) is %s', (value, expected) => {
    expect(containsEmailAddress(value)).toBe(expected);
  });
});

describe('anonymize: user id and personal data', () => {
  const personal: RuntimeEvent = {
    ...event,
    pageUrl: 'https://shop.example.com/welcome?email=jane%40example.com&Phone=123&user_id=u-7&utm_source=mail',
    referrer: 'https://mail.example.net/read?to=jane@example.com&folder=inbox',
    params: {
      user_id: 'u-7',
      user_email: 'jane@example.com',
      email: 'jane@example.com',
      phone: '+49 151 2345678',
      'user_data.email_address': 'jane@example.com',
      'user_data.address.first_name': 'Jane',
      em: 'tv.1~em.abc',
      contact: 'jane@example.com',
      section: 'account',
      value: 3,
    },
    // externalId: the site's user id among the customer data (GA4's uid, sent to Meta as external_id).
    userData: { email: 'jane@example.com', phone: '+49 151 2345678', externalId: 'u-7' },
  };

  it.each<[string, Partial<AnonymizerRules>, Partial<RuntimeEvent>]>([
    ['keeps everything by default (rules saved before the settings existed)', {}, {}],
    [
      'drops the user id parameters and query parameters with user_id drop',
      { user_id: 'drop' },
      {
        pageUrl: 'https://shop.example.com/welcome?email=jane%40example.com&Phone=123&utm_source=mail',
        params: Object.fromEntries(Object.entries(personal.params).filter(([name]) => name !== 'user_id')),
        userData: { email: 'jane@example.com', phone: '+49 151 2345678' },
      },
    ],
    [
      'drops personal parameters, query parameters and the customer data with user_data drop',
      { user_data: 'drop' },
      {
        pageUrl: 'https://shop.example.com/welcome?user_id=u-7&utm_source=mail',
        referrer: 'https://mail.example.net/read?folder=inbox',
        params: { user_id: 'u-7', section: 'account', value: 3 },
        userData: {},
      },
    ],
    [
      'drops both',
      { user_id: 'drop', user_data: 'drop' },
      {
        pageUrl: 'https://shop.example.com/welcome?utm_source=mail',
        referrer: 'https://mail.example.net/read?folder=inbox',
        params: { section: 'account', value: 3 },
        userData: {},
      },
    ],
  ])('%s', (_, rules, changed) => {
    const out = anonymize(personal, visitor, { ...KEEP, user_id: undefined, user_data: undefined, ...rules });
    expect(out.event).toEqual({ ...personal, ...changed });
  });

  it('leaves a page URL it cannot parse, and one without such parameters, exactly as it was', () => {
    const rules = { ...KEEP, user_id: 'drop', user_data: 'drop' } as const;
    const out = anonymize(
      { ...event, pageUrl: 'not a url ?email=x@y.zz', referrer: 'https://a.example/?q=1' },
      visitor,
      rules,
    );
    expect(out.event.pageUrl).toBe('not a url ?email=x@y.zz');
    expect(out.event.referrer).toBe('https://a.example/?q=1');
  });
});

describe('anonymizeGa4Params', () => {
  const hit = () =>
    new URLSearchParams(
      'v=2&tid=G-TEST123&cid=1.2&uid=u-7&en=login&em=tv.1~em.abc~ph.def&up.user_id=u-7&up.email=jane@example.com' +
        '&up.plan=gold&ep.user_id=u-7&ep.user_email=jane@example.com&ep.section=account&epn.value=3',
    );

  it.each<[string, Partial<AnonymizerRules>, string]>([
    [
      'keeps every parameter with keep rules',
      {},
      'v=2&tid=G-TEST123&cid=1.2&uid=u-7&en=login&em=tv.1%7Eem.abc%7Eph.def&up.user_id=u-7&up.email=jane%40example.com&up.plan=gold&ep.user_id=u-7&ep.user_email=jane%40example.com&ep.section=account&epn.value=3',
    ],
    [
      "drops uid and the user id's parameters with user_id drop",
      { user_id: 'drop' },
      'v=2&tid=G-TEST123&cid=1.2&en=login&em=tv.1%7Eem.abc%7Eph.def&up.email=jane%40example.com&up.plan=gold&ep.user_email=jane%40example.com&ep.section=account&epn.value=3',
    ],
    [
      'drops em (user-provided data) and personal parameters with user_data drop',
      { user_data: 'drop' },
      'v=2&tid=G-TEST123&cid=1.2&uid=u-7&en=login&up.user_id=u-7&up.plan=gold&ep.user_id=u-7&ep.section=account&epn.value=3',
    ],
  ])('%s', (_, rules, expected) => {
    expect(anonymizeGa4Params(hit(), { ...KEEP, ...rules }).toString()).toBe(expected);
  });
});
