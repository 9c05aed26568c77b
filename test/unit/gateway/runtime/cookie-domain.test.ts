import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cookieDomain } from '../../../../src/gateway/runtime/visit.js';

const to = (host: string) => ({ headers: { host } }) as unknown as http.IncomingMessage;

describe('the Domain of the cookies the power-ups set', () => {
  it('is the parent the container hostname shares with the page', () => {
    expect(cookieDomain(to('sgtm.shop.example:8443'), 'https://www.shop.example/checkout')).toBe('shop.example');
    expect(cookieDomain(to('sgtm.shop.example.co.uk'), 'https://shop.example.co.uk/')).toBe('shop.example.co.uk');
  });

  it('is none (host-only) without a shared parent, on the page host itself, for IPs or without a page', () => {
    expect(cookieDomain(to('c1.containers.tagport.io'), 'https://www.shop.example/')).toBeUndefined();
    expect(cookieDomain(to('shop.example'), 'https://shop.example/')).toBeUndefined();
    expect(cookieDomain(to('shop.example'), 'https://www.shop.example/')).toBeUndefined();
    expect(cookieDomain(to('127.0.0.1'), 'https://127.0.0.1/')).toBeUndefined();
    expect(cookieDomain(to('sgtm.shop.example'), null)).toBeUndefined();
  });
});
