import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { listOperations, operationKey } from './operations.js';

/**
 * Records which documented operations the tests call, for test/operation-coverage.setup.ts. The global setup
 * names a directory for this run in the environment; every worker appends the (method, route) pairs its apps
 * answered with a success to its own file there.
 */
export const hitsDirectoryVariable = 'TAGPORT_OPERATION_HITS_DIR';

const seen = new Set<string>();
let operationsWritten = false;

export function recordOperationHits(app: FastifyInstance): void {
  const directory = process.env[hitsDirectoryVariable];
  if (!directory || !existsSync(directory)) return;
  const file = join(directory, `hits-${process.pid}-${threadId}.txt`);
  // Only a success counts: a call that every test sees refused (validation, a missing id) never ran the operation.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const key = route && reply.statusCode < 400 && operationKey(request.method, route);
    if (key && !seen.has(key)) {
      seen.add(key);
      appendFileSync(file, `${key}\n`);
    }
    done();
  });
  app.addHook('onReady', (done) => {
    if (!operationsWritten) {
      operationsWritten = true;
      const operations = listOperations(app.swagger()).map(({ operationId, method, route }) => ({
        operationId,
        key: operationKey(method, route),
      }));
      writeFileSync(join(directory, `operations-${process.pid}-${threadId}.json`), JSON.stringify(operations));
    }
    done();
  });
}
