import type { TestProject } from 'vitest/node';
import { Scanner } from '../../src/scanner/index.js';
import { startFixtureServer } from '../fixtures/scanner/server.js';
import { startTestApp } from '../helpers/app.js';

/**
 * Global setup of the `client` project: the running service the typed client drives (PGlite, the job workers, a
 * real scanner pointed at the scanner's fixture sites) and an agency tenant with an owner key. The client's types are
 * the committed src/schema.ts (test/foundation/client-types.test.ts checks them against the served document).
 */
export default async function setup(project: TestProject) {
  const fixture = await startFixtureServer();
  const scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 1, scanTimeoutMs: 30_000 }));
  const t = await startTestApp('pglite', { allowPrivateNetworks: true }, undefined, { scanner });
  const stop = async () => {
    await t.close();
    await scanner.close();
    await fixture.close();
  };
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    const agency = await t.tenantWithKey('agency');
    project.provide('tagport', {
      baseUrl,
      apiKey: agency.token,
      // The scanner resolves the fixture hosts only: any other name cannot be reached.
      pages: { scannable: fixture.url('clean.example.test', '/'), unreachable: 'https://nowhere.example.test/' },
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
