import type { InvalidationBus } from '../../../src/db/invalidation.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedWildcard, TlsGateway, type TlsKeyPair } from '../../../src/gateway/tls.js';
import { presented } from '../../helpers/tls-probe.js';

describe("the Node gateway's TLS contexts of custom domains", () => {
  const lookups: string[] = [];
  let pair: TlsKeyPair;
  let gateway: TlsGateway;
  let port: number;

  beforeAll(async () => {
    pair = await selfSignedWildcard('custom.test');
    // Only subscribe() is used: no change is published in this test.
    const invalidations = { subscribe: () => () => {} } as unknown as InvalidationBus;
    const certificates = {
      served: async (hostname: string) => {
        lookups.push(hostname);
        return pair;
      },
    };
    gateway = new TlsGateway(
      { certificates, invalidations, handler: (_req, res) => res.end() },
      { baseDomain: 'gw.test', certFile: null, keyFile: null, onError: () => {}, maxContexts: 2 },
    );
    port = Number(new URL(await gateway.listen(0, '127.0.0.1')).port);
  });
  afterAll(() => gateway.close());

  it('keeps those of the domains that handshook last, and makes the least recently used one again', async () => {
    const handshake = async (hostname: string) =>
      expect((await presented(port, hostname)).subject).toContain('custom.test');
    await handshake('a.custom.test');
    await handshake('b.custom.test');
    await handshake('a.custom.test'); // kept; now the most recently used
    await handshake('c.custom.test'); // the third: b, used least recently, goes
    expect(lookups).toEqual(['a.custom.test', 'b.custom.test', 'c.custom.test']);
    await handshake('a.custom.test');
    await handshake('c.custom.test');
    expect(lookups).toHaveLength(3);
    await handshake('b.custom.test');
    expect(lookups).toEqual(['a.custom.test', 'b.custom.test', 'c.custom.test', 'b.custom.test']);
  });
});
