import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Secret, Service } from 'kubernetes-models/v1';

// The resource types of the stand-in API server (kube-api.ts), its Status errors and its validation.

type Loose = any;
type Model = new (data: Loose) => { validate(): void };

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  model?: Model;
  hasSpec: boolean;
}

export const RESOURCE_TYPES: ResourceType[] = [
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', model: Secret, hasSpec: false },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', model: Service, hasSpec: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', hasSpec: true },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', model: Deployment, hasSpec: true },
  {
    group: 'autoscaling',
    version: 'v2',
    plural: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    model: HorizontalPodAutoscaler,
    hasSpec: true,
  },
  {
    group: 'policy',
    version: 'v1',
    plural: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    model: PodDisruptionBudget,
    hasSpec: true,
  },
];

export const groupVersion = (type: ResourceType) => (type.group ? `${type.group}/${type.version}` : type.version);
const qualified = (type: ResourceType) => (type.group ? `${type.plural}.${type.group}` : type.plural);

export class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: object,
  ) {
    super(message);
  }
}

export function statusBody(error: HttpError): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    ...(error.details ? { details: error.details } : {}),
    code: error.code,
  };
}

export function notFound(type: ResourceType, name: string): HttpError {
  return new HttpError(404, 'NotFound', `${qualified(type)} "${name}" not found`, {
    name,
    group: type.group,
    kind: type.plural,
  });
}

export function invalid(type: ResourceType, name: string, causes: { field: string; message: string }[]): HttpError {
  const summary = causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ');
  return new HttpError(422, 'Invalid', `${type.kind}.${type.group || 'core'} "${name}" is invalid: ${summary}`, {
    name,
    group: type.group,
    kind: type.kind,
    causes: causes.map((cause) => ({ reason: 'FieldValueInvalid', ...cause })),
  });
}

/** What the API server itself checks beyond the OpenAPI schema, for the objects the driver writes. */
function semanticProblems(kind: string, object: Loose): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (kind === 'Deployment') {
    const selector = object.spec?.selector?.matchLabels ?? {};
    const labels = object.spec?.template?.metadata?.labels ?? {};
    if (Object.entries(selector).some(([key, value]) => labels[key] !== value)) {
      problems.push({ field: 'spec.template.metadata.labels', message: '`selector` does not match template `labels`' });
    }
  }
  if (kind === 'HorizontalPodAutoscaler' && object.spec?.maxReplicas < (object.spec?.minReplicas ?? 1)) {
    problems.push({ field: 'spec.maxReplicas', message: 'must be greater than or equal to `minReplicas`' });
  }
  for (const [index, owner] of (object.metadata?.ownerReferences ?? []).entries()) {
    if (!owner.uid)
      problems.push({
        field: `metadata.ownerReferences[${index}].uid`,
        message: 'Invalid value: "": uid must not be empty',
      });
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(object.metadata?.name ?? '')) {
    problems.push({
      field: 'metadata.name',
      message: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
    });
  }
  return problems;
}

/** The official schema (kubernetes-models) and the API server's own rules: 422 Invalid with every cause. */
export function validate(type: ResourceType, object: Loose) {
  if (!type.model) throw new HttpError(405, 'MethodNotAllowed', `${type.plural} are read-only here`);
  const causes = semanticProblems(type.kind, object);
  try {
    new type.model(object).validate();
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message: string }[] }).errors ?? [];
    causes.push(
      ...(errors.length
        ? errors.map((e) => ({ field: e.instancePath.slice(1).replaceAll('/', '.'), message: e.message }))
        : [{ field: '', message: String(error) }]),
    );
  }
  if (causes.length) throw invalid(type, object.metadata.name, causes);
}
