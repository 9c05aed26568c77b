import type { Config } from './config.js';
import type { Services } from './services.js';

type Values = Record<string, string | undefined>;
const STAGES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
type Stage = (typeof STAGES)[number];

interface StatusCommand {
  summary: string;
  options?: Record<string, { placeholder: string; required?: boolean }>;
  argument?: string;
  check?(values: Values): void;
  run(values: Values, argument: string, config: Config): Promise<void>;
}

type WithServices = (config: Config, run: (services: Services) => Promise<unknown>) => Promise<void>;

/** Notices to subscribers are jobs: the CLI sends them for the workers (it runs none itself). */
const withJobs =
  (withServices: WithServices) =>
  (config: Config, run: (services: Services) => Promise<unknown>): Promise<void> =>
    withServices(config, async (services) => {
      await services.jobs.start({ work: 'none' });
      return run(services);
    });

/** `tagport status …`: what platform operators post on the status page, without the API. */
export function statusCommands(
  withServices: WithServices,
  usageError: (message: string) => Error,
): Record<string, StatusCommand> {
  const withServicesAndJobs = withJobs(withServices);
  const checkStage = (values: Values) => {
    if (!STAGES.includes(values.status as Stage)) throw usageError(`--status must be one of ${STAGES.join(', ')}`);
  };
  return {
    'status incident': {
      summary: 'Post an incident on the status page with its first update; subscribers are told.',
      options: {
        component: { placeholder: 'COMPONENT', required: true },
        title: { placeholder: 'TITLE', required: true },
        status: { placeholder: STAGES.join('|'), required: true },
        message: { placeholder: 'TEXT', required: true },
      },
      check: checkStage,
      run: (values, _argument, config) =>
        withServicesAndJobs(config, ({ statusIncidents }) =>
          statusIncidents.open({
            component: values.component!,
            title: values.title!,
            status: values.status as Stage,
            message: values.message!,
          }),
        ),
    },
    'status update': {
      summary: 'Post an update to an open status incident (resolved resolves it).',
      argument: 'INCIDENT_ID',
      options: {
        status: { placeholder: STAGES.join('|'), required: true },
        message: { placeholder: 'TEXT', required: true },
      },
      check: checkStage,
      run: (values, incidentId, config) =>
        withServicesAndJobs(config, ({ statusIncidents }) =>
          statusIncidents.update(incidentId, { status: values.status as Stage, message: values.message! }),
        ),
    },
    'status maintenance': {
      summary: 'Announce a maintenance window (ISO times; --components is a comma-separated list).',
      options: {
        title: { placeholder: 'TITLE', required: true },
        'starts-at': { placeholder: 'ISO_TIME', required: true },
        'ends-at': { placeholder: 'ISO_TIME', required: true },
        message: { placeholder: 'TEXT' },
        components: { placeholder: 'A,B' },
      },
      check: (values) => {
        for (const option of ['starts-at', 'ends-at'])
          if (Number.isNaN(Date.parse(values[option]!))) throw usageError(`--${option} must be an ISO date and time`);
      },
      run: (values, _argument, config) =>
        withServicesAndJobs(config, ({ statusIncidents }) =>
          statusIncidents.scheduleMaintenance({
            title: values.title!,
            message: values.message ?? values.title!,
            components:
              values.components
                ?.split(',')
                .map((name) => name.trim())
                .filter(Boolean) ?? [],
            starts_at: new Date(values['starts-at']!).toISOString(),
            ends_at: new Date(values['ends-at']!).toISOString(),
          }),
        ),
    },
    'status operator-add': {
      summary: "Make a tenant a platform operator: its admins' and owners' credentials may post status incidents.",
      options: { tenant: { placeholder: 'TENANT_ID', required: true } },
      run: (values, _argument, config) =>
        withServices(config, async ({ statusIncidents, tenants }) => {
          if (!(await tenants.findForOperator(values.tenant!))) throw usageError(`No tenant ${values.tenant}`);
          return statusIncidents.grantOperator(values.tenant!);
        }),
    },
  };
}
