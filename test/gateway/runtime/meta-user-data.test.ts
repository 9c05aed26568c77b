import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashedCustomerInformation,
  normaliseCity,
  normaliseCountry,
  normaliseEmail,
  normaliseExternalId,
  normaliseName,
  normalisePhone,
  normalisePostalCode,
  normaliseRegion,
} from '../../../src/gateway/runtime/meta/user-data.js';
import type { UserData } from '../../../src/gateway/runtime/types.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe("Meta's normalisation of customer data (an empty result: nothing to send)", () => {
  it.each([
    ['email', normaliseEmail, ' Jane.Doe@Example.COM ', 'jane.doe@example.com'],
    ['email', normaliseEmail, 'not an email', ''],
    ['email', normaliseEmail, 'jane@localhost', ''],
    ['email', normaliseEmail, 'jane doe@example.com', ''],
    ['phone', normalisePhone, '+49 (151) 234-5678', '491512345678'],
    ['phone', normalisePhone, '0044 844 412 4653', '448444124653'],
    ['phone', normalisePhone, '+1 650-555-1212', '16505551212'],
    ['phone', normalisePhone, '12345', ''],
    ['phone', normalisePhone, '+49 151 2345678 9999 9999', ''],
    ['phone', normalisePhone, 'call me', ''],
    ['name', normaliseName, ' Mary-Ann ', 'maryann'],
    ['name', normaliseName, "O'Brien", 'obrien'],
    ['name', normaliseName, 'José María', 'josémaría'],
    ['name', normaliseName, 'Zoe\u0308', 'zoë'],
    ['name', normaliseName, '42', ''],
    ['city', normaliseCity, 'Menlo Park', 'menlopark'],
    ['city', normaliseCity, 'St. Louis', 'stlouis'],
    ['city', normaliseCity, 'Bad Wenigstadt', 'badwenigstadt'],
    ['region', normaliseRegion, 'CA', 'ca'],
    ['region', normaliseRegion, ' by ', 'by'],
    ['region', normaliseRegion, 'Île-de-France', 'îledefrance'],
    ['region', normaliseRegion, '--', ''],
    ['postal code', normalisePostalCode, '94025-1234', '94025'],
    ['postal code', normalisePostalCode, 'SW1A 1AA', 'sw1a1aa'],
    ['postal code', normalisePostalCode, ' 10115 ', '10115'],
    ['postal code', normalisePostalCode, ' - ', ''],
    ['country', normaliseCountry, 'DE', 'de'],
    ['country', normaliseCountry, ' us ', 'us'],
    ['country', normaliseCountry, 'USA', ''],
    ['country', normaliseCountry, 'Germany', ''],
    ['country', normaliseCountry, '49', ''],
    ['external id', normaliseExternalId, ' Customer-42 ', 'Customer-42'],
  ])('%s: %j → %j', (_, normalise, input, output) => {
    expect(normalise(input)).toBe(output);
  });
});

describe("hashedCustomerInformation (Meta's user_data from an event's customer data)", () => {
  it('hashes each clear value once normalised, in arrays as the Conversions API takes them', () => {
    const userData: UserData = {
      email: ' Jane.Doe@Example.com ',
      phone: '+49 151 2345678',
      firstName: 'Jane',
      lastName: 'Doe',
      city: 'Bad Wenigstadt',
      region: 'BY',
      postalCode: '11234',
      country: 'DE',
      externalId: 'customer-42',
    };
    expect(hashedCustomerInformation(userData, 'US')).toEqual({
      em: [sha256('jane.doe@example.com')],
      ph: [sha256('491512345678')],
      fn: [sha256('jane')],
      ln: [sha256('doe')],
      ct: [sha256('badwenigstadt')],
      st: [sha256('by')],
      zp: [sha256('11234')],
      country: [sha256('de')],
      external_id: [sha256('customer-42')],
    });
  });

  it('passes on values already hashed (hex), lower-cased', () => {
    const hashed = sha256('jane.doe@example.com');
    expect(hashedCustomerInformation({ email: hashed.toUpperCase(), lastName: hashed }, null)).toEqual({
      em: [hashed],
      ln: [hashed],
    });
  });

  it("leaves out what normalises to nothing, and takes the IP's country when the customer's is unusable", () => {
    const userData: UserData = { email: 'nobody', phone: '123', firstName: '-', country: 'USA', postalCode: ' ' };
    expect(hashedCustomerInformation(userData, 'AT')).toEqual({ country: [sha256('at')] });
    expect(hashedCustomerInformation({}, null)).toEqual({});
  });

  it('ignores values that are not strings instead of throwing', () => {
    const odd = { email: 42, phone: null, city: {}, country: ['DE'] } as unknown as UserData;
    expect(hashedCustomerInformation(odd, null)).toEqual({});
  });
});
