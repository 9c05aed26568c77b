import { describe, expect, it } from 'vitest';
import { allowedActions, parseContainerConfig } from '../../../../src/modules/containers/service.js';

const encode = (params: string) => Buffer.from(params, 'utf8').toString('base64');

describe('parseContainerConfig', () => {
  it('returns the GTM container id of a valid config', () => {
    expect(parseContainerConfig(encode('id=GTM-ABC123&env=1&auth=abcdefghijklmn'))).toBe('GTM-ABC123');
  });

  it('ignores surrounding whitespace, as pasted from GTM', () => {
    expect(parseContainerConfig(`  ${encode('id=GTM-ABC123&env=12&auth=abc_def-123')}\n`)).toBe('GTM-ABC123');
  });

  it.each([
    [
      'text that is not base64',
      'id=GTM-ABC123 env=1',
      'config must be the base64 container config string from Google Tag Manager.',
    ],
    [
      'a config of another product',
      encode('id=UA-1234&env=1&auth=abcdefghijklmn'),
      'config does not decode to a GTM container (id=GTM-…&env=…&auth=…).',
    ],
    ['a config without env', encode('id=GTM-ABC123&auth=abcdefghijklmn'), 'config has no valid env parameter.'],
    [
      'a config with a non-numeric env',
      encode('id=GTM-ABC123&env=x&auth=abcdefghijklmn'),
      'config has no valid env parameter.',
    ],
    ['a config with a short auth', encode('id=GTM-ABC123&env=1&auth=abc'), 'config has no valid auth parameter.'],
  ])('rejects %s with 400 invalid_config on the config field', (_, config, message) => {
    expect(() => parseContainerConfig(config)).toThrow(
      expect.objectContaining({
        statusCode: 400,
        code: 'invalid_config',
        message,
        extra: expect.objectContaining({ param: 'config' }),
      }),
    );
  });
});

describe('allowedActions', () => {
  it.each([
    ['running', ['stop', 'restart', 'delete']],
    ['stopped', ['start', 'delete']],
    ['failed', ['start', 'delete']],
    ['provisioning', ['delete']],
    ['starting', ['delete']],
    ['stopping', ['delete']],
    ['deleting', []],
    ['deleted', []],
  ] as const)('allows a %s container %j', (status, actions) => {
    expect(allowedActions(status)).toEqual(actions);
  });
});
