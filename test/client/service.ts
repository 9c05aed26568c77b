import type { TestProject } from 'vitest/node';
import { generateClientTypes } from '../../scripts/client-types.js';
import { Scanner } from '../../src/scanner/index.js';
import { startFixtureServer } from '../fixtures/scanner/server.js';
import { startTestApp } from '../helpers/app.js';

/**
 * Global setup of the `client` project: the running service the typed client drives (PGlite, the job workers, a
 * real scanner pointed at the scanner's fixture sites), an agency tenant with an owner key, and the client's types
 * generated from the document this service serves at /api/openapi.json (test/client/types.test.ts compiles the
 * client and the suite against them).
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
    await generateClientTypes(`${baseUrl}/api/openapi.json`);
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
