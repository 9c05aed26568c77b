import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { describeDatabase, startBanner } from '../../src/start-banner.js';

const configWith = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });

describe('start banner', () => {
  it('names a DATABASE_URL by host and database only, never its user or password', () => {
    const config = configWith({ DATABASE_URL: 'postgres://tagport:s3cret-Pa55@db.internal:6432/tagport_prod' });
    const described = describeDatabase(config, 'postgres');
    expect(described).toBe('PostgreSQL at db.internal:6432/tagport_prod (DATABASE_URL)');
    const banner = startBanner({ dashboardUrl: 'http://127.0.0.1:3000', database: described, roles: ['api'] });
    expect(banner).not.toContain('s3cret-Pa55');
    expect(banner).not.toContain('tagport:');
  });

  it('says nothing of a connection string it cannot read as a URL', () => {
    const config = configWith({ DATABASE_URL: 'host=db password=s3cret-Pa55 dbname=tagport' });
    expect(describeDatabase(config, 'postgres')).not.toContain('s3cret');
  });

  it('names the embedded cluster and PGlite by their directories', () => {
    const embedded = configWith({ EMBEDDED_POSTGRES_DIR: '/srv/tagport/postgres' });
    expect(describeDatabase(embedded, 'postgres')).toBe('embedded PostgreSQL in /srv/tagport/postgres');
    const pglite = configWith({ DATABASE_ENGINE: 'pglite', PGLITE_DATA_DIR: '/srv/tagport/pglite' });
    expect(describeDatabase(pglite, 'pglite')).toBe('PGlite in /srv/tagport/pglite');
  });

  it('shows the set-up link only when there is one, and the roles of a process without the dashboard', () => {
    const facts = { dashboardUrl: 'http://127.0.0.1:3000', database: 'PGlite in /d', roles: ['api'] };
    expect(startBanner({ ...facts, setupUrl: 'http://127.0.0.1:3000/setup' })).toContain(
      'Set up:     http://127.0.0.1:3000/setup',
    );
    expect(startBanner(facts)).not.toContain('Set up');
    expect(startBanner({ ...facts, dashboardUrl: null, roles: ['worker'] })).toContain('Roles:      worker');
  });
});
