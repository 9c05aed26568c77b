import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('system on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  describe('health · GET /healthz', () => {
    it('answers 200 ok without credentials', async () => {
      const response = await t.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe('ok');
    });
  });

  describe('readiness · GET /readyz', () => {
    it('answers 200 ok without credentials while the database answers', async () => {
      const response = await t.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe('ok');
    });

    it('answers 503 once the database is gone', async () => {
      const isolated = await startTestApp(backend);
      await isolated.database.close();
      const response = await isolated.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      await isolated.app.close();
      await isolated.testDatabase.drop();
    });
  });
});
