import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA, generatedClientTypes } from '../../scripts/client-types.js';

describe("the typed client's committed types (clients/typescript/src/schema.ts)", () => {
  // Generated in memory as `npm run client:generate` generates them, from the document the app serves: the committed
  // file must match, so the types are regenerated only when the OpenAPI document changed.
  it('match the OpenAPI document the app serves', async () => {
    const committed = fs.existsSync(CLIENT_SCHEMA) ? fs.readFileSync(CLIENT_SCHEMA, 'utf8') : '';
    const generated = await generatedClientTypes();
    expect(generated.length).toBeGreaterThan(1000);
    if (committed !== generated)
      expect.fail(
        'clients/typescript/src/schema.ts does not match the OpenAPI document: run npm run client:generate and commit it',
      );
  }, 300_000);
});
