import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, type GatewayApp, startGatewayApp } from '../../helpers/gateway-app.js';

// An instance whose operator turned `sgtm` off (SGTM_COMMAND unset) after containers were made on it: nothing of theirs
// can run here, so their lifecycle goes on without an orchestrator instead of retrying forever.
describe('sgtm containers on an instance where sgtm is switched off', () => {
  let g: GatewayApp;
  beforeAll(async () => {
    g = await startGatewayApp('pglite');
  }, 60_000);
  afterAll(() => g?.close());

  async function sgtmContainer(): Promise<string> {
    const created = await g.api('POST', '/api/containers/', { name: 'Was sGTM', region: 'eu-central', config: CONFIG });
    expect(created.statusCode, created.body).toBe(201);
    await g.settle();
    const { id } = created.json() as { id: string };
    await g.t.app.database.db.execute(sql`update containers set runtime = 'sgtm' where id = ${id}`);
    return id;
  }

  const statusOf = async (id: string) => (await g.api('GET', `/api/containers/${id}/`)).json();

  it('stops, starts into failed with the reason, and deletes', async () => {
    const id = await sgtmContainer();
    const shown = await statusOf(id);
    expect(shown.tagging_server).toMatchObject({ state: 'unknown', reason: expect.stringContaining('SGTM_COMMAND') });
    expect((await g.api('POST', `/api/containers/${id}/stop/`)).statusCode).toBe(202);
    await g.settle();
    expect((await statusOf(id)).status).toBe('stopped');
    expect((await g.api('POST', `/api/containers/${id}/start/`)).statusCode).toBe(202);
    await g.settle();
    const started = await statusOf(id);
    expect(started.status).toBe('failed');
    expect(started.status_reason).toContain('SGTM_COMMAND');
    expect((await g.api('DELETE', `/api/containers/${id}/`)).statusCode).toBe(202);
    await g.settle();
    expect((await statusOf(id)).status).toBe('deleted');
  });
});
