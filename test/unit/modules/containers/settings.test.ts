import { describe, expect, it } from 'vitest';
import { settingsFromStored } from '../../../../src/modules/containers/settings.js';

describe('the anonymizer settings read back from storage', () => {
  it.each([
    [
      'saved before user_id and user_data existed: both keep',
      { ip: 'truncate', user_agent: 'drop', click_ids: 'keep' },
      { ip: 'truncate', user_agent: 'drop', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
    ],
    [
      'saved with them: as saved',
      { ip: 'keep', user_agent: 'keep', click_ids: 'drop', user_id: 'drop', user_data: 'drop' },
      { ip: 'keep', user_agent: 'keep', click_ids: 'drop', user_id: 'drop', user_data: 'drop' },
    ],
    [
      'saved with only one: the other keep',
      { user_data: 'drop' },
      { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'drop' },
    ],
  ] as const)('%s', (_, storedGa4, ga4) => {
    const settings = settingsFromStored({ loader_path: 'k3v9xq2m', anonymizer: { ga4: storedGa4 } });
    expect(settings.anonymizer).toEqual({
      ga4,
      meta: { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
    });
  });
});
