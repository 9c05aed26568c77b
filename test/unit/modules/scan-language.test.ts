import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { resolveLanguage } from '../../../src/modules/tracking-checker/service.js';

describe('scan language: BCP 47 tags, case-insensitive, by their primary language', () => {
  it.each([
    [undefined, 'en'],
    ['en', 'en'],
    ['EN', 'en'],
    ['de-DE', 'de'],
    ['DE-at', 'de'],
    ['pt-BR', 'pt'],
    ['fr-Latn-CA', 'fr'],
  ])('uses %s as %s', (tag, language) => {
    expect(resolveLanguage(tag)).toBe(language);
  });

  it.each(['xx', 'zh-Hant-TW', 'eng'])('refuses %s with 400 invalid_parameter and the allowed values', (tag) => {
    try {
      resolveLanguage(tag);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        statusCode: 400,
        code: 'invalid_parameter',
        extra: { param: 'language', details: { allowed_values: ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl'] } },
      });
    }
  });
});
