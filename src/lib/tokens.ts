import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PREFIX = 'tgp_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = /^tgp_([0-9A-Za-z]{30})([0-9A-Za-z]{6})$/;

function base62(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function checksum(randomPart: string): string {
  return base62(crc32(randomPart), CHECKSUM_LENGTH);
}

/** `tgp_` + 30 random base62 chars + 6-char base62 CRC32 of the random part (verifiable offline). */
export function generateApiToken(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return TOKEN_PREFIX + random + checksum(random);
}

/** Format and checksum check, no I/O: rejects garbage before any database lookup. */
export function isWellFormedApiToken(token: string): boolean {
  const match = TOKEN_PATTERN.exec(token);
  return match !== null && checksum(match[1]) === match[2];
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function tokenHint(token: string): { start: string; last4: string } {
  return { start: token.slice(0, TOKEN_PREFIX.length + 4), last4: token.slice(-4) };
}
