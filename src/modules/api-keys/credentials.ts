import type { Database } from '../../db/index.js';
import * as queries from './queries.js';

export type { KeyCredential } from './queries.js';

/** The API-key reads and writes request authentication needs (modules/auth/credentials.ts), kept in this module. */
export class ApiKeyCredentials {
  private readonly database: Database;

  constructor({ database }: { database: Database }) {
    this.database = database;
  }

  findByHash(tokenHash: string): Promise<queries.KeyCredential | null> {
    return queries.findCredentialByHash(this.database.db, tokenHash);
  }

  /** Writes buffered `last_used_at` values in one statement. */
  writeLastUsed(entries: Array<[string, Date]>): Promise<void> {
    return queries.writeLastUsed(this.database.db, entries);
  }
}
