import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startRuntime } from '../../src/process-start.js';
import { createTestDatabase } from '../helpers/database.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-config-'));
const secret = 'x'.repeat(32);

describe('COOKIE_SECRET', () => {
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it.each([{ NODE_ENV: 'production' }, { SECURE_COOKIES: 'true' }])('is required outside development (%o)', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/COOKIE_SECRET must be set to a random value of at least 32 characters/);
    expect(() => loadConfig({ ...env, COOKIE_SECRET: 'too short' })).toThrow(/at least 32 characters/);
    expect(loadConfig({ ...env, COOKIE_SECRET: secret })).toMatchObject({
      cookieSecret: secret,
      cookieSecretFile: null,
    });
  });

  it('is random per process in development with an in-memory database, never a published value', () => {
    const config = loadConfig({ PGLITE_DATA_DIR: 'memory://' });
    expect(config.cookieSecretFile).toBeNull();
    expect(config.cookieSecret.length).toBeGreaterThanOrEqual(32);
    expect(config.cookieSecret).not.toContain('tagport-development');
    expect(loadConfig({ PGLITE_DATA_DIR: 'memory://' }).cookieSecret).toBe(config.cookieSecret);
  });

  it('names a file beside the PGlite data directory (or under data/ with DATABASE_URL) without creating it', () => {
    const dataDir = path.join(root, 'unused', 'pglite');
    expect(loadConfig({ PGLITE_DATA_DIR: dataDir }).cookieSecretFile).toBe(`${dataDir}.cookie-secret`);
    expect(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x' }).cookieSecretFile).toBe(
      path.resolve('data', 'cookie-secret'),
    );
    expect(fs.existsSync(path.join(root, 'unused'))).toBe(false);
  });

  it('is generated on the first start in development, kept beside the data directory and reused by the next start', async () => {
    const config = loadConfig(
      { PGLITE_DATA_DIR: path.join(root, 'pglite'), LOG_LEVEL: 'silent' },
      { runMigrations: false },
    );
    const testDatabase = await createTestDatabase('pglite');
    try {
      const first = await startRuntime(config, testDatabase.database);
      const kept = fs.readFileSync(config.cookieSecretFile!, 'utf8').trim();
      expect(fs.statSync(config.cookieSecretFile!).mode & 0o777).toBe(0o600);
      expect(first.app.config.cookieSecret).toBe(kept);
      const signed = first.app.signCookie('csrf-secret');
      await first.close();

      const second = await startRuntime(config, testDatabase.database);
      expect(second.app.config.cookieSecret).toBe(kept);
      expect(second.app.unsignCookie(signed)).toMatchObject({ valid: true, value: 'csrf-secret' });
      await second.close();
    } finally {
      await testDatabase.drop();
    }
  });
});

describe('META_GRAPH_ORIGIN, META_GRAPH_VERSION, META_TIMEOUT_MS, META_DELIVERY_RETENTION_DAYS, META_BATCH_WINDOW_MS', () => {
  it("defaults to Meta's Graph API, version v26.0, batching events of 20 ms", () => {
    expect(loadConfig({}).meta).toEqual({
      graphOrigin: 'https://graph.facebook.com',
      graphVersion: 'v26.0',
      timeoutMs: 10_000,
      deliveryRetentionDays: 30,
      batchWindowMs: 20,
    });
  });

  it('sends each event alone with META_BATCH_WINDOW_MS=0 and refuses a negative window', () => {
    expect(loadConfig({ META_BATCH_WINDOW_MS: '0' }).meta.batchWindowMs).toBe(0);
    expect(() => loadConfig({ META_BATCH_WINDOW_MS: '-5' })).toThrow(/META_BATCH_WINDOW_MS/);
  });

  it('takes a fixture origin (trailing slash dropped) and another version', () => {
    expect(
      loadConfig({ META_GRAPH_ORIGIN: 'http://127.0.0.1:4567/', META_GRAPH_VERSION: 'v25.0', META_TIMEOUT_MS: '500' })
        .meta,
    ).toMatchObject({ graphOrigin: 'http://127.0.0.1:4567', graphVersion: 'v25.0', timeoutMs: 500 });
  });

  it.each([
    [{ META_GRAPH_ORIGIN: 'graph.facebook.com' }, /META_GRAPH_ORIGIN must be an origin/],
    [{ META_GRAPH_ORIGIN: 'https://graph.facebook.com/v26.0' }, /META_GRAPH_ORIGIN must be an origin/],
    [{ META_GRAPH_VERSION: '26' }, /META_GRAPH_VERSION must look like v26.0/],
    [{ META_DELIVERY_RETENTION_DAYS: '0' }, /META_DELIVERY_RETENTION_DAYS must be an integer >= 1/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('SMTP_URL, MAIL_FROM', () => {
  it('sends nothing by default, from Tagport <no-reply@localhost>', () => {
    expect(loadConfig({}).mail).toEqual({ smtpUrl: null, from: 'Tagport <no-reply@localhost>' });
  });

  it('takes an smtp:// or smtps:// URL and a sender', () => {
    const env = { SMTP_URL: 'smtps://user:pass@mail.example.com:465', MAIL_FROM: 'Ops <ops@example.com>' };
    expect(loadConfig(env).mail).toEqual({ smtpUrl: env.SMTP_URL, from: 'Ops <ops@example.com>' });
  });

  it('refuses another scheme without repeating the URL, which may hold a password', () => {
    const load = () => loadConfig({ SMTP_URL: 'http://user:hunter2-secret@mail.example.com' });
    expect(load).toThrow(ConfigError);
    expect(load).not.toThrow(/hunter2/);
  });
});

describe('OUTGOING_LOG_DELIVERED_PER_SECOND', () => {
  it('keeps 50 delivered forwards per container and second by default; 0 keeps only failures and conversions', () => {
    expect(loadConfig({}).runtime.outgoingLogDeliveredPerSecond).toBe(50);
    expect(loadConfig({ OUTGOING_LOG_DELIVERED_PER_SECOND: '0' }).runtime.outgoingLogDeliveredPerSecond).toBe(0);
    expect(() => loadConfig({ OUTGOING_LOG_DELIVERED_PER_SECOND: 'many' })).toThrow(
      /OUTGOING_LOG_DELIVERED_PER_SECOND/,
    );
  });
});
