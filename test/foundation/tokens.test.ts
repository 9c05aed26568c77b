import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { generateApiToken, isWellFormedApiToken, tokenHint } from '../../src/lib/tokens.js';
import { hashPassword, verifyPassword } from '../../src/lib/passwords.js';

describe('API tokens', () => {
  it('have the tgp_ + 30 + 6 base62 layout and a valid checksum', () => {
    const tokens = new Set(Array.from({ length: 200 }, generateApiToken));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^tgp_[0-9A-Za-z]{36}$/);
      expect(isWellFormedApiToken(token)).toBe(true);
    }
  });

  it('reject any single-character change, truncation and garbage offline', () => {
    const token = generateApiToken();
    for (let i = 4; i < token.length; i++) {
      const replacement = token[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiToken(token.slice(0, i) + replacement + token.slice(i + 1))).toBe(false);
    }
    expect(isWellFormedApiToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedApiToken(`${token}x`)).toBe(false);
    expect(isWellFormedApiToken(token.replace('tgp_', 'tgx_'))).toBe(false);
    expect(isWellFormedApiToken('')).toBe(false);
    expect(isWellFormedApiToken(`tgp_${'!'.repeat(36)}`)).toBe(false);
  });

  it('hint shows the start and the last 4 characters only', () => {
    const token = generateApiToken();
    expect(tokenHint(token)).toEqual({ start: token.slice(0, 8), last4: token.slice(-4) });
  });
});

describe('ids', () => {
  it('are type-prefixed and sort by creation time', () => {
    const early = newId('tenant', 1_700_000_000_000);
    const late = newId('tenant', 1_700_000_000_001);
    expect(early).toMatch(/^ten_[0-9a-z]{26}$/);
    expect(early < late).toBe(true);
  });
});

describe('passwords', () => {
  it('verify the right password and refuse a wrong one', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash.startsWith('scrypt$')).toBe(true);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
  });
});
