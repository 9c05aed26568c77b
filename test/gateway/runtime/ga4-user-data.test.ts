import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forwardedHit, parseCollect } from '../../../src/gateway/runtime/ga4.js';
import { sha256Hex, userDataOf } from '../../../src/gateway/runtime/ga4-user-data.js';
import type { Visitor } from '../../../src/gateway/runtime/types.js';

const hex = (value: string) => createHash('sha256').update(value).digest('hex');
/** What gtag.js puts in `em`: the SHA-256, base64url without padding. */
const web = (value: string) => createHash('sha256').update(value).digest('base64url');
const EMAIL = 'jane.doe@example.com';
const visitor = { ip: '203.0.113.7', userAgent: 'UA', cookies: {}, country: null, region: null, bot: false } as Visitor;

/** The user data of a hit whose query is `query` (the parameters as gtag encodes them on the wire). */
const parsed = (query: string) => userDataOf(new URLSearchParams(query));

describe('sha256Hex (hashes as Google tags send them)', () => {
  it.each([
    ['hex, as sent', hex(EMAIL), hex(EMAIL)],
    ['upper-case hex', hex(EMAIL).toUpperCase(), hex(EMAIL)],
    ['base64url without padding (gtag)', web(EMAIL), hex(EMAIL)],
    ['base64url padded', `${web(EMAIL)}=`, hex(EMAIL)],
    ['standard base64', createHash('sha256').update('+49123456789').digest('base64'), hex('+49123456789')],
  ])('reads %s', (_, input, output) => {
    expect(sha256Hex(input)).toBe(output);
  });

  it.each([
    ['', 'empty'],
    [web(EMAIL).slice(1), '42 base64 characters'],
    [`${hex(EMAIL)}0`, '65 hex digits'],
    ['z'.repeat(64), '64 characters that are not hex'],
    [`${web(EMAIL).slice(1)}*`, 'a character outside base64'],
    [EMAIL, 'a clear value'],
  ])('gives null for %j (%s)', (input) => {
    expect(sha256Hex(input)).toBeNull();
  });

  it('takes the real hash Google Ads showed for +49123456789 (E.164) as that hash', () => {
    expect(sha256Hex('sCrwpdCoTZxHtveoXYTFCwX4mj3zSTtZwBEpeyuoehQ')).toBe(hex('+49123456789'));
  });
});

describe("userDataOf: gtag's em parameter", () => {
  const gtag = (value: string) => `em=${encodeURIComponent(value)}`;

  it('reads hashed email and names as hex, the clear address fields decoded, and leaves out the phone hash', () => {
    const em = [
      'tv.1',
      `em.${web(EMAIL)}`,
      `pn.${web('+491512345678')}`,
      `fn0.${web('jane')}`,
      `ln0.${web('doe')}`,
      `sa0.${web('1 main street')}`,
      'ct0.bad%20wenigstadt',
      'rg0.by',
      'pc0.11234',
      'co0.DE',
    ].join('~');
    expect(parsed(gtag(em))).toEqual({
      email: hex(EMAIL),
      firstName: hex('jane'),
      lastName: hex('doe'),
      city: 'bad wenigstadt',
      region: 'by',
      postalCode: '11234',
      country: 'DE',
    });
  });

  it.each([
    ['hex hashes the site made itself', `tv.1~em.${hex(EMAIL)}`, { email: hex(EMAIL) }],
    ['the first of several emails', `tv.1~em.${web(EMAIL)}~em.${web('other@example.com')}`, { email: hex(EMAIL) }],
    [
      "each field's first value, whichever address",
      'tv.1~co0.DE~co1.FR~pc1.75001',
      { country: 'DE', postalCode: '75001' },
    ],
    ['only the version', 'tv.1', {}],
    ['error codes instead of values', 'tv.1~em.e2~fn0.e23~co0.e1', {}],
    ['a clear value where gtag sends a hash', `tv.1~em.${EMAIL}~fn0.Jane`, {}],
    ['tag version 2', `tv.2~em.${web(EMAIL)}`, {}],
    ['no tag version', `em.${web(EMAIL)}`, {}],
    ['a bad percent-encoding', 'tv.1~ct0.%E0%A4%A~co0.DE', { country: 'DE' }],
    [
      'broken entries around a good one',
      `tv.1~foo~.~....~em.~.x~fake.value~zz0.1~${`em.${web(EMAIL)}`}~`,
      { email: hex(EMAIL) },
    ],
    ['a clear value of 257 characters', `tv.1~ct0.${'a'.repeat(257)}`, {}],
    ['an em longer than Google reads', `tv.1~em.${web(EMAIL)}~ct0.${'a'.repeat(20_000)}`, {}],
  ])('reads %s', (_, em, userData) => {
    expect(parsed(gtag(em))).toEqual(userData);
  });
});

describe('userDataOf: user_data parameters and user_id', () => {
  it.each([
    [
      "GA4's names in clear",
      {
        'ep.user_data.email': ' Jane.Doe@Example.com ',
        'ep.user_data.phone_number': '+49 151 2345678',
        'ep.user_data.address.first_name': 'Jane',
        'ep.user_data.address.last_name': 'Doe',
        'ep.user_data.address.city': 'Berlin',
        'ep.user_data.address.region': 'BE',
        'ep.user_data.address.postal_code': '10115',
        'ep.user_data.address.country': 'DE',
      },
      {
        email: 'Jane.Doe@Example.com',
        phone: '+49 151 2345678',
        firstName: 'Jane',
        lastName: 'Doe',
        city: 'Berlin',
        region: 'BE',
        postalCode: '10115',
        country: 'DE',
      },
    ],
    [
      'the other spellings, an address list, user properties and numbers',
      {
        'up.user_data.email_address': EMAIL,
        'epn.user_data.phone': '491512345678',
        'ep.user_data.address.0.state': 'ca',
        'ep.user_data.zip': '94025',
        'upn.user_data.external_id': '42',
      },
      { email: EMAIL, phone: '491512345678', region: 'ca', postalCode: '94025', externalId: '42' },
    ],
    [
      'sha256_ names: hashes taken, the phone hash (Google hashes +E.164) and non-hashes left out',
      {
        'ep.user_data.sha256_email_address': web(EMAIL),
        'ep.user_data.sha256_phone_number': hex('+491512345678'),
        'ep.user_data.address.sha256_first_name': 'Jane',
        'ep.user_data.address.sha256_last_name': hex('doe').toUpperCase(),
      },
      { email: hex(EMAIL), lastName: hex('doe') },
    ],
    ['user_id as the external id', { uid: ' customer-42 ' }, { externalId: 'customer-42' }],
    [
      'names that are no customer data, empty and overlong values',
      {
        'ep.email': EMAIL,
        'ep.user_data.favourite_colour': 'blue',
        'ep.user_data.address.street': '1 Main Street',
        'ep.user_data.email': '   ',
        'ep.user_data.address.city': 'x'.repeat(257),
        'ep.user_data.address.12345.country': 'DE',
        uid: '',
      },
      {},
    ],
  ])('reads %s', (_, query, userData) => {
    expect(parsed(new URLSearchParams(query).toString())).toEqual(userData);
  });

  it('prefers user_data parameters to gtag’s em, and user_data.external_id to user_id', () => {
    const query = new URLSearchParams({
      em: `tv.1~em.${web('gtag@example.com')}~co0.FR`,
      'ep.user_data.email': EMAIL,
      'ep.user_data.external_id': 'crm-7',
      uid: 'ga-user-7',
    });
    expect(parsed(query.toString())).toEqual({ email: EMAIL, country: 'FR', externalId: 'crm-7' });
  });

  it.each([
    '%',
    'em=%E0%A4%A',
    'em=tv.1~',
    'em=~~~~',
    'em=tv.1~em',
    'ep.user_data.=x',
    'ep.user_data.address.=x',
    `em=${'tv.1~'.repeat(5000)}`,
  ])('never throws on %j', (query) => {
    expect(() => parsed(query)).not.toThrow();
  });
});

describe('parseCollect and forwardedHit with user data', () => {
  it("puts each body line's user data (over the URL's) on its event", () => {
    const hits = parseCollect(
      `v=2&tid=G-A1234&cid=1.2&uid=u-1&em=${encodeURIComponent(`tv.1~em.${web(EMAIL)}`)}`,
      ['en=page_view', `en=purchase&ep.user_data.phone_number=${encodeURIComponent('+49 151 2345678')}`].join('\n'),
    );
    expect(hits.map((hit) => hit.event.userData)).toEqual([
      { email: hex(EMAIL), externalId: 'u-1' },
      { email: hex(EMAIL), phone: '+49 151 2345678', externalId: 'u-1' },
    ]);
  });

  it('forwards the user data to GA4 as sent, and none of it once a vendor may not receive it', () => {
    const em = encodeURIComponent(`tv.1~em.${web(EMAIL)}`);
    const [hit] = parseCollect(`v=2&tid=G-A1234&cid=1.2&en=purchase&em=${em}&ep.user_data.email=a%40b.c&ep.k=v`, '');
    expect(forwardedHit(hit, visitor, '1.2').get('em')).toBe(`tv.1~em.${web(EMAIL)}`);
    const withoutUserData = forwardedHit(hit, visitor, '1.2', { ...hit.event, userData: {} });
    expect(Object.fromEntries(withoutUserData)).toEqual({
      v: '2',
      tid: 'G-A1234',
      cid: '1.2',
      en: 'purchase',
      'ep.k': 'v',
      _uip: '203.0.113.7',
    });
  });
});
