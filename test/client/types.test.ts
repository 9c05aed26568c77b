import { describe, expect, it } from 'vitest';
import { typecheckClient } from '../../scripts/client-types.js';

describe('the typed client (clients/typescript)', () => {
  // src/schema.ts matches the served document (test/foundation/client-types.test.ts): a change of the document that
  // breaks the client or a call of this suite fails here, with the compiler's messages.
  it('compiles, with the suite that drives the service through it, against the types of the served document', async () => {
    const { ok, output } = await typecheckClient();
    expect(output).toBe('');
    expect(ok).toBe(true);
  }, 120_000);
});
