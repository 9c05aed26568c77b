import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hitsDirectoryVariable } from './operation-hits.js';

/**
 * Vitest global setup of the integration project: every documented operation must be called by at least one test.
 * Workers record the routes their apps served (test/helpers/operation-hits.ts); after the run this compares the
 * union with the OpenAPI document. Only a whole run can judge that, so the check is opt-in:
 * `CHECK_OPERATION_COVERAGE=1 npm test`. The generated access test and the fuzz test do not count.
 */
const directory = resolve('.tmp', 'operation-hits', String(process.pid));

export function setup(): void {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  process.env[hitsDirectoryVariable] = directory;
}

export function teardown(): void {
  try {
    if (process.env.CHECK_OPERATION_COVERAGE !== '1') return;
    const uncalled = uncalledOperations(directory);
    if (uncalled === null) return;
    if (uncalled.length === 0) {
      console.log('operation coverage: every documented operation is called by a test');
      return;
    }
    console.error(
      `operation coverage: ${uncalled.length} documented operation(s) called by no test: ${uncalled.join(', ')}`,
    );
    process.exitCode = 1;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The operationIds no test called, or null when no app was started in this run. */
export function uncalledOperations(hitsDirectory: string): string[] | null {
  const files = readdirSync(hitsDirectory);
  const operationsFile = files.find((file) => file.startsWith('operations-'));
  if (!operationsFile) return null;
  const operations: Array<{ operationId: string; key: string }> = JSON.parse(
    readFileSync(join(hitsDirectory, operationsFile), 'utf8'),
  );
  const hits = new Set(
    files
      .filter((file) => file.startsWith('hits-'))
      .flatMap((file) => readFileSync(join(hitsDirectory, file), 'utf8').split('\n')),
  );
  return operations.filter(({ key }) => !hits.has(key)).map(({ operationId }) => operationId);
}
