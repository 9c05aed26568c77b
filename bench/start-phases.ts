/**
 * One warm start of the server, as `tagport serve` does it, with a timestamp after each phase (ms since this process
 * began). Run by `npm run bench start` in a fresh process (`node --import tsx`); prints one JSON line.
 */
const marks: Record<string, number> = { node_and_loader: performance.now() };
const mark = (name: string) => {
  marks[name] = performance.now();
};
/** Time spent inside a method while it runs (summed over calls), to split a phase that calls it. */
const within: Record<string, number> = {};
function timeMethod(prototype: object, method: string, name: string) {
  const target = prototype as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method];
  target[method] = async function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      within[name] = (within[name] ?? 0) + performance.now() - started;
    }
  };
}

const [{ loadConfig }, { buildApp }, { openDatabase }, { openEmbeddedCluster }, { JobEngine }, { InvalidationBus }] =
  await Promise.all([
    import('../src/config.js'),
    import('../src/app.js'),
    import('../src/db/index.js'),
    import('../src/db/embedded-postgres.js'),
    import('../src/jobs/engine.js'),
    import('../src/db/invalidation.js'),
  ]);
mark('modules_imported');
timeMethod(JobEngine.prototype, 'start', 'job_engine_start');
timeMethod(InvalidationBus.prototype, 'start', 'invalidation_listen');

const config = { ...loadConfig(), cookieSecret: 'bench-'.repeat(8), cookieSecretFile: null };
const cluster = config.databaseUrl
  ? null
  : await openEmbeddedCluster(config.embeddedPostgresDir, { port: config.embeddedPostgresPort });
mark('cluster_started');
const database = await openDatabase({
  databaseUrl: config.databaseUrl ?? cluster!.url,
  pgliteDataDir: config.pgliteDataDir,
  poolSize: config.databasePoolSize,
});
mark('database_opened');
await database.migrate();
mark('migrations_checked');
const app = await buildApp({ config, database });
mark('app_built');
await app.listen({ host: '127.0.0.1', port: 0 });
mark('listening');
await app.close();
await database.close();
await cluster?.stop();
console.log(JSON.stringify({ marks, within }));
