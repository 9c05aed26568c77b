import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config.js';
import { openConfiguredDatabase, startRuntime } from './runtime.js';
import { createServices, type Services } from './services.js';
import type { Role } from './http/context.js';
import { ApiError } from './http/errors.js';

const USAGE = `Usage: tagport <command>

  serve                                        start the API (same as npm start)
  migrate                                      run database migrations
  tenants create --name N [--plan P] [--parent ID]
  keys create --tenant ID --name N [--expires-at ISO]   prints the token once
  keys revoke ID --tenant ID
  users create --email E --name N --tenant ID [--role owner|admin|member]  (password from TAGPORT_PASSWORD or --password)
`;

async function serve(config: Config) {
  const runtime = await startRuntime(config);
  await runtime.app.listen({ host: config.host, port: config.port });
  const gatewayUrl = await runtime.app.services.gateway.listen(config.gateway.port, config.host);
  runtime.app.log.info({ gateway: gatewayUrl }, 'gateway listening');
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    runtime.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    await runtime.close();
    clearTimeout(timer);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Runs an administrative command with the services, without an HTTP listener. */
async function withServices<T>(config: Config, run: (services: Services) => Promise<T>) {
  const database = await openConfiguredDatabase(config);
  const services = createServices(database, config);
  try {
    console.log(JSON.stringify(await run(services), null, 2));
  } finally {
    await services.stop().catch(() => {});
    await database.close();
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      parent: { type: 'string' },
      tenant: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      'expires-at': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, action, target] = positionals;
  const config = loadConfig();
  if (values.help || !command) return void console.log(USAGE);
  if (command === 'serve') return serve(config);
  if (command === 'migrate') {
    const database = await openConfiguredDatabase({ ...config, runMigrations: true });
    await database.close();
    return void console.log(JSON.stringify({ migrated: true, database: database.kind }));
  }
  if (command === 'tenants' && action === 'create') {
    return withServices(config, ({ tenants }) => tenants.create({ name: required(values, 'name'), plan: values.plan ?? 'free', parentId: values.parent ?? null }));
  }
  if (command === 'keys' && action === 'create') {
    return withServices(config, ({ apiKeys }) => apiKeys.create(required(values, 'tenant'), { name: required(values, 'name'), expires_at: values['expires-at'] }));
  }
  if (command === 'keys' && action === 'revoke') {
    if (!target) throw new UsageError('keys revoke needs the key id');
    return withServices(config, ({ apiKeys }) => apiKeys.revoke(required(values, 'tenant'), target));
  }
  if (command === 'users' && action === 'create') {
    const password = values.password ?? process.env.TAGPORT_PASSWORD;
    if (!password) throw new UsageError('set TAGPORT_PASSWORD or pass --password');
    const role = (values.role ?? 'owner') as Role;
    if (!['owner', 'admin', 'member'].includes(role)) throw new UsageError('--role must be owner, admin or member');
    return withServices(config, ({ users }) =>
      users.createUser({ email: required(values, 'email'), name: required(values, 'name'), password, tenantId: required(values, 'tenant'), role }),
    );
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
  else if (error instanceof ApiError) console.error(JSON.stringify({ error: { type: error.type, code: error.code, message: error.message } }));
  else console.error(error);
  process.exit(error instanceof UsageError ? 64 : 1);
});
