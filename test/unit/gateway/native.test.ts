import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderNginxConfig, writableRoute } from '../../../src/gateway/native/config.js';
import type { NativeHostname, NativeRoute } from '../../../src/gateway/native/plan.js';
import { MeterLogReader, parseMeterLine } from '../../../src/gateway/native/meter-log.js';

const line = (path: string, status = 200) =>
  `1795754126.460\tctr_1\tshop.example\t${status}\t12\t34\tPOST\t0.002, 0.004\t0.005\t${path}\n`;

describe('the meter log of the nginx engine', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  const logFile = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-meter-'));
    dirs.push(dir);
    return path.join(dir, 'meter.log');
  };

  it('reads a line as the request nginx proxied (the last upstream tried is the one that answered)', () => {
    expect(parseMeterLine(line('/g/collect?v=2').trimEnd())).toEqual({
      at: 1795754126460,
      containerId: 'ctr_1',
      hostname: 'shop.example',
      status: 200,
      requestBytes: 12,
      responseBytes: 34,
      method: 'POST',
      upstreamMs: 4,
      durationMs: 5,
      path: '/g/collect?v=2',
    });
    expect(parseMeterLine('1795754126.460\t\tshop.example\t400\t\t0\tGET\t\t0.000\t/x')).toBeNull();
    expect(parseMeterLine('not a meter line')).toBeNull();
  });

  it('has no upstream time when no upstream answered', () => {
    expect(parseMeterLine('1795754126.460\tctr_1\th\t502\t\t0\tGET\t\t0.001\t/x')?.upstreamMs).toBeNull();
  });

  it('reads whole lines once each, leaving a half-written line for the next read', async () => {
    const file = logFile();
    const reader = new MeterLogReader(file, () => {});
    expect(await reader.read()).toEqual([]);
    fs.writeFileSync(file, `${line('/a')}${line('/b').slice(0, 20)}`);
    expect((await reader.read()).map((request) => request.path)).toEqual(['/a']);
    fs.appendFileSync(file, `${line('/b').slice(20)}${line('/c')}`);
    expect((await reader.read()).map((request) => request.path)).toEqual(['/b', '/c']);
    expect(await reader.read()).toEqual([]);
  });

  it('rotates a grown log without losing or repeating a line written before nginx reopens it', async () => {
    const file = logFile();
    let reopened = 0;
    const reader = new MeterLogReader(file, () => reopened++, 200);
    fs.writeFileSync(file, `${line('/1')}${line('/2')}${line('/3')}`);
    const seen = (await reader.read()).map((request) => request.path);
    expect(reopened).toBe(1);
    expect(fs.existsSync(`${file}.1`)).toBe(true);
    fs.appendFileSync(`${file}.1`, line('/4')); // nginx still writing to the renamed file
    seen.push(...(await reader.read()).map((request) => request.path));
    fs.writeFileSync(file, line('/5')); // nginx reopened: a new file
    for (let i = 0; i < 3; i++) seen.push(...(await reader.read()).map((request) => request.path));
    expect(seen).toEqual(['/1', '/2', '/3', '/4', '/5']);
    expect(fs.existsSync(`${file}.1`)).toBe(false);
  });
});

const route = (change: Partial<NativeRoute> = {}, upstream: Partial<NativeRoute['upstream']> = {}): NativeRoute => ({
  containerId: 'ctr_01abc',
  hostnames: ['data.shop.example'],
  upstream: {
    scheme: 'https',
    addresses: ['127.0.0.7:443', '[::1]:443'],
    host: 'sgtm.shop.example',
    serverName: 'sgtm.shop.example',
    basePath: '',
    ...upstream,
  },
  loaderPath: 'k3v9xq2m',
  markBots: true,
  replicas: false,
  ...change,
});

describe('the nginx config of the nginx engine', () => {
  it("passes over an sgtm container's replica whose connection failed, without sending the request twice", () => {
    const replicas = route({ replicas: true }, { scheme: 'http', addresses: ['127.0.0.1:40001', '127.0.0.1:40002'] });
    const config = renderNginxConfig(plan([replicas]));
    expect(config).toMatch(
      /upstream p[0-9a-f]{16} \{ server 127\.0\.0\.1:40001 max_fails=1 fail_timeout=3s; server 127\.0\.0\.1:40002 max_fails=1 fail_timeout=3s;/,
    );
    expect(config).toContain('proxy_next_upstream error; proxy_next_upstream_tries 1;');
    const upstream = renderNginxConfig(plan([route()]));
    expect(upstream).not.toContain('max_fails');
    expect(upstream).not.toContain('proxy_next_upstream error;');
    // Both kinds: a server each, and only the replicas' passes over a failed one.
    const both = renderNginxConfig(plan([route({ containerId: 'ctr_up', hostnames: ['up.shop.example'] }), replicas]));
    const servers = both.split(/\n {2}server \{/).slice(1);
    const replicaServer = servers.find((server) => server.includes('server_name data.shop.example;'));
    const upstreamServer = servers.find((server) => server.includes('server_name up.shop.example;'));
    expect(replicaServer).toContain('proxy_next_upstream error; proxy_next_upstream_tries 1;');
    expect(replicaServer).not.toContain('proxy_ssl_verify');
    expect(upstreamServer).not.toContain('proxy_next_upstream error;');
    expect(upstreamServer).toContain('proxy_ssl_name $tagport_upstream_tls_name; proxy_ssl_verify on;');
  });

  it.each([
    ['a base path with a quote', route({}, { basePath: "/x'y" })],
    ['a base path with a variable', route({}, { basePath: '/$host' })],
    ['a base path with a brace', route({}, { basePath: '/a}b' })],
    ['a hostname with a semicolon', route({ hostnames: ['a.example;x'] })],
    ['an address that is a name', route({}, { addresses: ['evil.example:80'] })],
    ['a host header with a space', route({}, { host: 'a b' })],
    ['a loader path with a slash', route({ loaderPath: 'a/b' })],
  ])('leaves a route with %s to the Node gateway', (_why, unsafe) => {
    expect(writableRoute(unsafe)).toBe(false);
    expect(renderNginxConfig(plan([unsafe]))).not.toContain('ctr_01abc');
  });

  it('writes a safe route into the maps: its hostnames, its pool, its Host header, its loader, bots marked', () => {
    expect(writableRoute(route())).toBe(true);
    const config = renderNginxConfig(plan([route({ hostnames: ['data.shop.example', 'c1.gw.example'] })]));
    const pool = /upstream (p[0-9a-f]{16}) \{ server 127\.0\.0\.7:443; server \[::1\]:443;/.exec(config)?.[1];
    expect(pool).toBeDefined();
    expect(mapEntries(config, '$host', '$tagport_container')).toEqual({
      default: '""',
      'data.shop.example': 'ctr_01abc',
      'c1.gw.example': 'ctr_01abc',
    });
    expect(mapEntries(config, '$tagport_container', '$tagport_upstream').ctr_01abc).toBe(`https://${pool}`);
    expect(mapEntries(config, '$tagport_container', '$tagport_upstream_host').ctr_01abc).toBe('sgtm.shop.example');
    expect(mapEntries(config, '$tagport_container', '$tagport_loader').ctr_01abc).toBe('/k3v9xq2m.js');
    expect(mapEntries(config, '$tagport_container', '$tagport_mark_bots').ctr_01abc).toBe('1');
    expect(config).toContain('server_name data.shop.example c1.gw.example;');
    expect(config).toContain('proxy_pass $tagport_upstream$request_uri;');
    expect(config).toContain('if ($tagport_here = 0) { return 418; }');
    expect(config).toContain('proxy_set_header X-Forwarded-Host $host;');
    expect(config).toContain('proxy_set_header X-Tagport-Bot $tagport_route_bot;');
    expect(config).toContain('map $tagport_mark_bots $tagport_route_bot { 1 $tagport_bot; default ""; }');
  });

  it('writes the maps of 10,000 containers and one server for all of their hostnames', () => {
    const routes = Array.from({ length: 10_000 }, (_, i) =>
      route({ containerId: `ctr_${i}`, hostnames: [`c${i}.gw.example`, `d${i}.shop.example`] }),
    );
    const config = renderNginxConfig(plan(routes));
    expect(Object.keys(mapEntries(config, '$host', '$tagport_container'))).toHaveLength(20_001);
    expect(config.match(/server \{/g)).toHaveLength(2); // the default server and the routed one
    expect(config.match(/upstream p[0-9a-f]{16} /g)).toHaveLength(1);
    expect(config).toContain('map_hash_max_size 80000;');
  });

  it('writes the pools in the order of the routes (the busiest first), where nginx looks for them', () => {
    const at = (i: number) =>
      route({ containerId: `ctr_${i}`, hostnames: [`c${i}.gw.example`] }, { addresses: [`127.0.0.${i}:443`] });
    const poolOrder = (routes: NativeRoute[]) =>
      [...renderNginxConfig(plan(routes)).matchAll(/upstream p[0-9a-f]{16} \{ server ([\d.]+):/g)].map((m) => m[1]);
    expect(poolOrder([at(2), at(1), at(3)])).toEqual(['127.0.0.2', '127.0.0.1', '127.0.0.3']);
    expect(poolOrder([at(3), at(2), at(1)])).toEqual(['127.0.0.3', '127.0.0.2', '127.0.0.1']);
  });

  it('escapes a key a map would read as one of its parameters', () => {
    const config = renderNginxConfig(plan([route({ containerId: 'default' })]));
    expect(config).toMatch(/map \$tagport_container \$tagport_upstream \{\s+default "";\s+\\default https:/);
  });

  it('gives containers with the same upstream one pool, and keeps pools apart by address, TLS name and replicas', () => {
    const pools = (routes: NativeRoute[]) => {
      const config = renderNginxConfig(plan(routes));
      return {
        blocks: config.match(/upstream p[0-9a-f]{16} \{/g)?.length ?? 0,
        used: routes.map((_, i) =>
          mapEntries(config, '$tagport_container', '$tagport_upstream')[`ctr_${i}`].replace(/^https?:\/\//, ''),
        ),
      };
    };
    const at = (i: number, upstream: Partial<NativeRoute['upstream']> = {}, change: Partial<NativeRoute> = {}) =>
      route({ containerId: `ctr_${i}`, hostnames: [`c${i}.gw.example`], ...change }, upstream);
    const same = pools([at(0), at(1), at(2, { addresses: ['[::1]:443', '127.0.0.7:443'] })]);
    expect(same.blocks).toBe(1);
    expect(new Set(same.used).size).toBe(1);
    const apart = pools([
      at(0),
      at(1, { addresses: ['127.0.0.8:443'] }),
      at(2, { serverName: 'other.example' }),
      at(3, { scheme: 'http' }),
      at(4, {}, { replicas: true }),
    ]);
    expect(apart.blocks).toBe(5);
    expect(new Set(apart.used).size).toBe(5);
  });

  it('puts the target under a base path as it came, and marks no bots when bot detection is off', () => {
    const config = renderNginxConfig(plan([route({ markBots: false }, { basePath: '/sgtm' })]));
    expect(mapEntries(config, '$tagport_container', '$tagport_upstream').ctr_01abc).toMatch(
      /^https:\/\/p[0-9a-f]{16}\/sgtm$/,
    );
    expect(mapEntries(config, '$tagport_container', '$tagport_mark_bots')).toEqual({ default: '0' });
  });

  it('chooses every TLS certificate by SNI in the default server, and makes none per container', () => {
    const files = (name: string) => ({ certFile: `/s/${name}.pem`, keyFile: `/s/${name}.pem` });
    const config = renderNginxConfig(
      plan(
        [route()],
        [
          { name: 'builtin.shop.example', certificate: files('builtin') },
          { name: 'bad.example;x', certificate: files('bad') },
        ],
      ),
    );
    expect(config).toMatch(
      /map \$ssl_server_name \$tagport_certificate \{\s+default \/run\/tagport\/secrets\/d\.crt;\s+builtin\.shop\.example \/s\/builtin\.pem;\s+\}/,
    );
    expect(config).toContain('default /run/tagport/secrets/d.key;');
    expect(config).toContain('ssl_certificate $tagport_certificate;');
    expect(config.match(/ssl_certificate /g)).toHaveLength(1);
    expect(config).not.toContain('bad.example');
    expect(config).toMatch(/server \{\s+listen 0\.0\.0\.0:443;\s+server_name data\.shop\.example;/);
    const plain = renderNginxConfig({ ...plan([], [{ name: 'b.example', certificate: files('b') }]), tlsPort: null });
    expect(plain).not.toContain('b.example');
    expect(plain).not.toContain('ssl_certificate');
  });
});

/** The entries of the map from `source` to `variable` in a config, by key. */
function mapEntries(config: string, source: string, variable: string): Record<string, string> {
  const start = config.indexOf(`map ${source} ${variable} {`);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = config.slice(config.indexOf('{', start) + 1, config.indexOf('}', start));
  return Object.fromEntries(
    body
      .split(';')
      .map((entry) => entry.trim().split(/\s+/))
      .filter((words) => words.length === 2)
      .map(([key, value]) => [key, value]),
  );
}

function plan(routes: NativeRoute[], certificates: NativeHostname[] = []) {
  return {
    runDir: '/run/tagport',
    workers: 1,
    host: '0.0.0.0',
    httpPort: 80,
    tlsPort: 443,
    defaultCertificate: { certFile: '/run/tagport/secrets/d.crt', keyFile: '/run/tagport/secrets/d.key' },
    fallback: '127.0.0.1:4100',
    frontSecret: 'secret',
    platformToken: 'platform-token',
    meterLog: '/run/tagport/meter.log',
    caFile: '/run/tagport/ca.pem',
    upstreamTimeoutMs: 15_000,
    routes,
    certificates,
  };
}
