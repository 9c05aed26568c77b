import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, parseRoles, type Config, type ProcessRole } from './config.js';
import type { Role } from './http/context.js';
import { AppError } from './lib/errors.js';
import { isEmail } from './modules/auth/schemas.js';
import { assertStrongPassword } from './modules/auth/policy.js';
import type { TenantService } from './modules/tenants/service.js';
import type { GatewayWorkers } from './gateway-workers.js';
import type { Services } from './services.js';
import { statusCommands } from './cli-status.js';
import { describeDatabase, startBanner, startupClock } from './start-banner.js';

// The app (thousands of modules) is imported only by the commands that run it, so usage errors and help answer at once.
const processStart = () => import('./process-start.js');

/** sysexits(3) codes: bad arguments, bad configuration. Every other failure exits 1. */
const EXIT_USAGE = 64;
const EXIT_CONFIG = 78;
/** Past the configured grace for requests and jobs: closing the database and Chromium. */
const SHUTDOWN_MARGIN_MS = 5_000;
const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

type Values = Record<string, string | undefined>;

interface CommandSpec {
  summary: string;
  /** Option name → placeholder shown in the usage; `required` options must be given and not blank. */
  options?: Record<string, { placeholder: string; required?: boolean }>;
  /** The one positional argument the command takes, if any. */
  argument?: string;
  /** Checks that need no database; throws UsageError. Runs before any database is opened or created. */
  check?(values: Values): void;
  run(values: Values, argument: string, config: Config): Promise<void>;
}

class UsageError extends Error {}

function rolesOf(value: string): ProcessRole[] {
  try {
    return parseRoles(value);
  } catch (error) {
    throw error instanceof ConfigError ? new UsageError(`--role: ${error.message}`) : error;
  }
}

function checkRole(values: Values): void {
  if (values.role && !ROLES.includes(values.role as Role))
    throw new UsageError('--role must be owner, admin or member');
}
/** A refusal with a plain message for the operator (exit 1). */
class CommandError extends Error {}

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    summary:
      'Start the API, the tagging gateway and the job worker (what `npm start` runs); --role runs only some of them.',
    options: { role: { placeholder: 'api,gateway,worker' } },
    check: (values) => {
      if (values.role) rolesOf(values.role);
    },
    run: (values, _argument, config) => serve(values.role ? { ...config, roles: rolesOf(values.role) } : config),
  },
  migrate: {
    summary: 'Run the database migrations.',
    run: async (_values, _argument, config) => {
      const { openConfiguredDatabase } = await processStart();
      const database = await openConfiguredDatabase({ ...config, runMigrations: true });
      await database.close();
      print({ migrated: true, database: database.kind });
    },
  },
  'setup-token': {
    summary:
      'Print a one-time token (valid 1 hour) for the first-run set-up of a database that has tenants but no users.',
    run: (_values, _argument, config) =>
      withServices(config, async ({ users }) => {
        const created = await users.createSetupToken();
        return { ...created, setup_url: setupUrl(configuredBaseUrl(config), created.token) };
      }),
  },
  'tenants create': {
    summary: 'Create a tenant (any plan; --parent makes it a client of an agency or partner tenant).',
    options: {
      name: { placeholder: 'NAME', required: true },
      plan: { placeholder: 'PLAN' },
      parent: { placeholder: 'TENANT_ID' },
    },
    run: (values, _argument, config) =>
      withServices(config, async ({ tenants }) => {
        if (values.parent) await requireTenant(tenants, values.parent);
        return tenants.create({ name: values.name!, plan: values.plan ?? 'free', parentId: values.parent ?? null });
      }),
  },
  'keys create': {
    summary: 'Create an API key (role admin unless --role says otherwise); prints its token once.',
    options: {
      tenant: { placeholder: 'TENANT_ID', required: true },
      name: { placeholder: 'NAME', required: true },
      role: { placeholder: 'owner|admin|member' },
      'expires-at': { placeholder: 'ISO_DATE' },
    },
    check: checkRole,
    run: (values, _argument, config) =>
      withServices(config, async ({ apiKeys, tenants }) => {
        await requireTenant(tenants, values.tenant!);
        return apiKeys.create(values.tenant!, {
          name: values.name!,
          expires_at: values['expires-at'],
          role: (values.role ?? 'admin') as Role,
        });
      }),
  },
  'keys revoke': {
    summary: 'Revoke an API key.',
    argument: 'KEY_ID',
    options: { tenant: { placeholder: 'TENANT_ID', required: true } },
    run: (values, keyId, config) =>
      withServices(config, async ({ apiKeys, tenants }) => {
        await requireTenant(tenants, values.tenant!);
        return apiKeys.revoke(values.tenant!, keyId);
      }),
  },
  'users create': {
    summary: 'Create a user with a membership. The password comes from TAGPORT_PASSWORD or --password.',
    options: {
      email: { placeholder: 'EMAIL', required: true },
      name: { placeholder: 'NAME', required: true },
      tenant: { placeholder: 'TENANT_ID', required: true },
      role: { placeholder: 'owner|admin|member' },
      password: { placeholder: 'PASSWORD' },
    },
    check: (values) => {
      if (!isEmail(values.email)) throw new UsageError(`--email '${values.email}' is not a valid email address`);
      checkRole(values);
      const password = values.password ?? process.env.TAGPORT_PASSWORD;
      if (!password) throw new UsageError('set TAGPORT_PASSWORD or pass --password');
      try {
        assertStrongPassword(password);
      } catch (error) {
        throw error instanceof AppError ? new UsageError(error.message) : error;
      }
    },
    run: (values, _argument, config) =>
      withServices(config, async ({ users, tenants }) => {
        await requireTenant(tenants, values.tenant!);
        const password = values.password ?? process.env.TAGPORT_PASSWORD ?? '';
        return users.createUser({
          email: values.email!,
          name: values.name!,
          password,
          tenantId: values.tenant!,
          role: (values.role ?? 'owner') as Role,
        });
      }),
  },
  ...statusCommands(
    (config, run) => withServices(config, run),
    (message) => new UsageError(message),
  ),
};

function usageLine(name: string, spec: CommandSpec): string {
  const options = Object.entries(spec.options ?? {}).map(([option, { placeholder, required }]) =>
    required ? `--${option} ${placeholder}` : `[--${option} ${placeholder}]`,
  );
  return ['  tagport', name, spec.argument, ...options].filter(Boolean).join(' ');
}

const USAGE = `Usage:\n${Object.entries(COMMANDS)
  .map(([name, spec]) => `${usageLine(name, spec)}\n      ${spec.summary}`)
  .join('\n')}\n`;

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

async function serve(config: Config) {
  const { GatewayWorkers, isGatewayWorker, serveGatewayWorker } = await import('./gateway-workers.js');
  if (isGatewayWorker()) return serveGatewayWorker(config);
  const clock = startupClock();
  const runtime = await (await processStart()).startRuntime(config, undefined, clock.mark);
  const { app } = runtime;
  const gatewayWorkers =
    (config.gateway.workers ?? 1) > 1 && config.gateway.engine !== 'nginx'
      ? new GatewayWorkers(config.gateway.workers!, app.log)
      : null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, roles: config.roles }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS);
    await gatewayWorkers?.stop();
    await runtime.close();
    clearTimeout(timer);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
    clock.mark('api_listening');
    app.log.info({ roles: config.roles }, 'roles');
    if (config.roles.includes('gateway')) {
      await app.services.taggingSupervisor?.start();
      if (gatewayWorkers) await listenWithWorkers(app, gatewayWorkers);
      else await listenGateway(app, config);
      clock.mark('gateway_listening');
    }
  } catch (error) {
    await gatewayWorkers?.stop().catch(() => {});
    await runtime.close().catch(() => {});
    throw error;
  }
  const database = describeDatabase(config, runtime.database.kind);
  const base = config.publicBaseUrl ?? address;
  const setup = config.roles.includes('api')
    ? await announceSetup(app, base).catch((error: unknown) => {
        app.log.error({ err: error }, 'could not check whether set-up is needed');
        return null;
      })
    : null;
  clock.mark('ready');
  app.log.info({ startup_ms: clock.marks }, 'ready');
  const dashboardUrl = config.roles.includes('api') ? base : null;
  process.stdout.write(startBanner({ dashboardUrl, setupUrl: setup, database, roles: config.roles }));
}

/** GATEWAY_WORKERS > 1: the gateway's listeners are served by forked processes; the status page counts them. */
async function listenWithWorkers(app: FastifyInstance, workers: GatewayWorkers) {
  app.services.serveGatewayElsewhere(() => workers.serving > 0);
  const gatewayUrl = await workers.start();
  app.services.status.register('Gateway', async () =>
    workers.serving > 0
      ? { status: 'operational', detail: `Accepting container traffic in ${workers.serving} gateway workers.` }
      : { status: 'outage', detail: 'No gateway worker is serving.' },
  );
  app.log.info({ gateway: gatewayUrl, workers: workers.serving }, 'gateway listening in worker processes');
}

async function listenGateway(app: FastifyInstance, config: Config) {
  if (app.services.nativeGateway) {
    const { http, https } = await app.services.nativeGateway.start();
    app.log.info({ gateway: http, tls: https, workers: config.gateway.workers }, 'gateway listening (nginx engine)');
    return;
  }
  const gatewayUrl = await app.services.gateway.listen(config.gateway.port, config.host);
  app.log.info({ gateway: gatewayUrl }, 'gateway listening');
  if (app.services.gatewayTls && config.gateway.tlsPort != null) {
    const tlsUrl = await app.services.gatewayTls.listen(config.gateway.tlsPort, config.host);
    app.log.info({ gateway: tlsUrl }, 'gateway TLS listening (HTTP/2 and HTTP/1.1); plain HTTP now redirects to it');
  }
}

/**
 * Until the first owner exists, the log says how to create it; on a database the CLI provisioned with a one-time URL.
 * Returns that link for the banner, or null once there are users.
 */
async function announceSetup(app: FastifyInstance, base: string): Promise<string | null> {
  const state = await app.services.users.setupState();
  if (state === 'open') {
    app.log.info({ setup_url: `${base}/setup` }, 'no users yet: open the set-up page to create the first owner');
    return `${base}/setup`;
  }
  if (state !== 'token_required') return null;
  const { token, expires_at } = await app.services.users.createSetupToken();
  const url = setupUrl(base, token);
  app.log.warn({ setup_url: url, expires_at }, 'no users yet: open this one-time set-up URL to create the first owner');
  return url;
}

/** The address the CLI expects the server at (it has no listener of its own to ask). */
function configuredBaseUrl(config: Config): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = ['0.0.0.0', '::'].includes(config.host)
    ? 'localhost'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host;
  return `http://${host}:${config.port}`;
}

const setupUrl = (base: string, token: string) => `${base}/setup?token=${encodeURIComponent(token)}`;

/** Runs an administrative command with the services, without an HTTP listener, and prints its result as JSON. */
async function withServices(config: Config, run: (services: Services) => Promise<unknown>) {
  const [{ openConfiguredDatabase }, { createServices }] = await Promise.all([processStart(), import('./services.js')]);
  const database = await openConfiguredDatabase(config);
  const services = createServices({ database, config });
  try {
    print(await run(services));
  } finally {
    await services.stop().catch(() => {});
    await database.close();
  }
}

async function requireTenant(tenants: TenantService, tenantId: string): Promise<void> {
  if (!(await tenants.findForOperator(tenantId))) throw new CommandError(`No tenant ${tenantId}`);
}

/** The command and its checked arguments, or 'help'. Nothing here touches the database or the configuration. */
function parseInvocation(
  argv: string[],
): { name: string; spec: CommandSpec; values: Values; argument: string } | 'help' {
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0])) return 'help';
  const name = [`${argv[0]} ${argv[1]}`, argv[0]].find((candidate) => candidate in COMMANDS);
  if (!name) throw new UsageError(`unknown command: ${argv.slice(0, 2).join(' ')}`);
  const spec = COMMANDS[name];
  const parsed = parseCommandLine(argv.slice(name.split(' ').length), spec);
  if (parsed.values.help) return 'help';
  const given = parsed.values as Record<string, string | boolean | undefined>;
  const values: Values = Object.fromEntries(
    Object.keys(spec.options ?? {}).map((option) => [option, given[option] as string | undefined]),
  );
  for (const [option, { required }] of Object.entries(spec.options ?? {})) {
    const value = values[option];
    if (value === undefined && required) throw new UsageError(`--${option} is required`);
    if (value !== undefined && value.trim() === '') throw new UsageError(`--${option} needs a value`);
  }
  const argument = parsed.positionals[0] ?? '';
  if (spec.argument && (parsed.positionals.length !== 1 || argument.trim() === ''))
    throw new UsageError(`${name} takes one ${spec.argument}`);
  spec.check?.(values);
  return { name, spec, values, argument };
}

function parseCommandLine(args: string[], spec: CommandSpec) {
  const options = Object.fromEntries(
    Object.keys(spec.options ?? {}).map((option) => [option, { type: 'string' as const }]),
  );
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: Boolean(spec.argument),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    // Node's argument errors (missing value, unknown option, stray argument) carry codes ERR_PARSE_ARGS_*.
    if (String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS'))
      throw new UsageError((error as Error).message);
    throw error;
  }
}

export async function main(argv: string[]): Promise<void> {
  const invocation = parseInvocation(argv);
  if (invocation === 'help') return void process.stdout.write(USAGE);
  await invocation.spec.run(invocation.values, invocation.argument, loadConfig());
}

/** What the operator sees: a plain message, never SQL, query parameters or a stack trace. */
async function failure(error: unknown): Promise<{ message: string; exitCode: number }> {
  if (error instanceof UsageError) return { message: `${error.message}\n\n${USAGE}`, exitCode: EXIT_USAGE };
  if (error instanceof ConfigError) return { message: `Configuration error: ${error.message}`, exitCode: EXIT_CONFIG };
  const [{ DataDirectoryInUseError }, { DrizzleQueryError }] = await Promise.all([
    import('./db/data-directory-lock.js'),
    import('drizzle-orm/errors'),
  ]);
  const { code, address, port } = error as { code?: unknown; address?: unknown; port?: unknown };
  if (code === 'EADDRINUSE')
    return {
      message: `Cannot listen on ${address}:${port}: another program uses that port. PORT, GATEWAY_PORT and GATEWAY_TLS_PORT choose the ports.`,
      exitCode: 1,
    };
  if (error instanceof CommandError || error instanceof AppError || error instanceof DataDirectoryInUseError)
    return { message: error.message, exitCode: 1 };
  // Drizzle's message holds the statement and its parameters (a new key's hash); the driver's own message does not.
  if (error instanceof DrizzleQueryError)
    return {
      message: `Database error: ${(error.cause as Error | undefined)?.message ?? 'the query failed'}`,
      exitCode: 1,
    };
  return { message: `Unexpected error: ${error instanceof Error ? error.message : String(error)}`, exitCode: 1 };
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  const { message, exitCode } = await failure(error);
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
});
