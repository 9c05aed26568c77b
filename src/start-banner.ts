import type { Config } from './config.js';

/** What the operator reads when `tagport serve` is ready; the JSON logs carry the same facts for machines. */
export interface BannerFacts {
  /** Where the dashboard is, or null when this process serves no API. */
  dashboardUrl: string | null;
  /** The first-run set-up link while there are no users yet. */
  setupUrl?: string | null;
  database: string;
  roles: readonly string[];
}

/**
 * The database in use, in words, without secrets: a DATABASE_URL is shown as its host, port and database name only
 * (never its user name or password).
 */
export function describeDatabase(config: Config, kind: 'pglite' | 'postgres'): string {
  if (kind === 'pglite')
    return config.pgliteDataDir.startsWith('memory://')
      ? 'PGlite in memory (nothing is kept)'
      : `PGlite in ${config.pgliteDataDir}`;
  if (!config.databaseUrl) return `embedded PostgreSQL in ${config.embeddedPostgresDir}`;
  return `PostgreSQL at ${describeUrl(config.databaseUrl)} (DATABASE_URL)`;
}

function describeUrl(value: string): string {
  try {
    const url = new URL(value);
    const host = url.host || new URLSearchParams(url.search).get('host') || 'localhost';
    const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
    return name ? `${host}/${name}` : host;
  } catch {
    // Not a URL (a key=value connection string): say nothing of it rather than risk showing a password.
    return 'the configured server';
  }
}

export function startBanner(facts: BannerFacts): string {
  const lines = ['', 'Tagport is ready.'];
  if (facts.dashboardUrl) lines.push(`  Dashboard:  ${facts.dashboardUrl}/`);
  if (facts.setupUrl) lines.push(`  Set up:     ${facts.setupUrl}  (no users yet: create the first owner here)`);
  lines.push(`  Database:   ${facts.database}`);
  if (!facts.dashboardUrl) lines.push(`  Roles:      ${facts.roles.join(', ')}`);
  lines.push('  Stop with Ctrl+C. The JSON lines around this are the logs.', '');
  return `${lines.join('\n')}\n`;
}

/**
 * When each step of the start was done, in milliseconds since this process began: logged with the banner (`ready`,
 * `startup_ms`) so a slow start shows where its time went. `npm run bench start` reads it.
 */
export function startupClock() {
  const marks: Record<string, number> = {};
  return { marks, mark: (step: string) => void Object.assign(marks, { [step]: Math.round(performance.now()) }) };
}
