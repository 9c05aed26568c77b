import { configDefaults, defineConfig } from 'vitest/config';

// Three projects in one run, so `npm test` writes every test into one junit file (.ci/run reads its totals):
// `unit` (pure functions, no database or servers, milliseconds; `npm run test:unit` runs it alone),
// `integration` (real servers, PGlite/PostgreSQL, Redis, Chromium) and `client` (the typed client of
// clients/typescript driving one running service). They share the run's two workers.
// Integration files share their worker's modules (isolate: false): importing the app costs seconds per file, and
// every file builds its own app, database and servers anyway, so nothing a test touches carries over.
export default defineConfig({
  test: {
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: '.tmp/junit.xml' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          pool: 'threads',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**', 'test/client/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          globalSetup: ['test/helpers/operation-coverage.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        // The typed client (clients/typescript) against one running service its global setup starts.
        test: {
          name: 'client',
          include: ['test/client/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['test/client/service.ts'],
          pool: 'forks',
        },
      },
    ],
  },
});
