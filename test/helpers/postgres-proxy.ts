import net, { type AddressInfo } from 'node:net';
import { openDatabase } from '../../src/db/index.js';
import type { Config } from '../../src/config.js';
import { startTestApp, type TestApp } from './app.js';

/** One client connection through the proxy, as the proxy's rule sees it. */
export interface ProxiedConnection {
  /** True for the connection's first chunk: PostgreSQL's start-up packet, with the `application_name`. */
  readonly first: boolean;
  /** While true, nothing passes in either direction and nothing is closed (a connection dead without a FIN). */
  silenced: boolean;
  /** Closes both sides at once. */
  cut(): void;
}

/**
 * A TCP proxy to PostgreSQL for network faults: `rule` sees every chunk a client sends before it is passed on and
 * may silence or cut its connection; `accepting` false refuses new connections.
 */
export async function startPostgresProxy(target: URL, rule: (chunk: Buffer, connection: ProxiedConnection) => void) {
  const state = { accepting: true };
  const server = net.createServer((client) => {
    if (!state.accepting) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    const connection = { first: true, silenced: false, cut };
    client.on('data', (chunk: Buffer) => {
      rule(chunk, connection);
      connection.first = false;
      if (!connection.silenced && !client.destroyed) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!connection.silenced) client.write(chunk);
    });
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return { url: url.toString(), state, close: () => new Promise((resolve) => server.close(resolve)) };
}

export type PostgresProxy = Awaited<ReturnType<typeof startPostgresProxy>>;

/**
 * Two instances on one PostgreSQL test database: `direct` connects to it, `proxied` reaches it through a proxy
 * `makeProxy` starts, with its own pool and LISTEN connection (`database` adds to its options).
 */
export async function twoInstancesThroughProxy<P extends PostgresProxy>(
  overrides: Partial<Config>,
  makeProxy: (target: URL) => Promise<P>,
  database: { listenHeartbeatMs?: number } = {},
) {
  const direct = await startTestApp('postgres', overrides);
  const proxy = await makeProxy(new URL(direct.testDatabase.url ?? ''));
  const proxiedDatabase = await openDatabase({ databaseUrl: proxy.url, pgliteDataDir: '', poolSize: 4, ...database });
  const proxied: TestApp = await startTestApp('postgres', overrides, {
    database: proxiedDatabase,
    url: proxy.url,
    drop: () => proxiedDatabase.close(),
  });
  return {
    direct,
    proxied,
    proxy,
    async close() {
      proxy.state.accepting = true;
      for (const app of [proxied, direct]) {
        await app.close();
        await app.testDatabase.drop();
      }
      await proxy.close();
    },
  };
}

export type InstancePair<P extends PostgresProxy> = Awaited<ReturnType<typeof twoInstancesThroughProxy<P>>>;
