import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { podsOf, type Rollout, withDeploymentStatus } from './kube-controller.js';
import {
  groupVersion,
  HttpError,
  notFound,
  RESOURCE_TYPES,
  type ResourceType,
  statusBody,
  validate,
} from './kube-resources.js';

/**
 * A stand-in for the Kubernetes API server on 127.0.0.1 (plain HTTP, bearer token), speaking its REST protocol for
 * what the kubernetes driver uses: discovery (`/api/v1`, `/apis/{group}/{version}`), server-side apply and JSON merge
 * patch, GET, list with `labelSelector`, DELETE with garbage collection of dependents by ownerReference uid, and pod
 * logs. Every object written is validated against the official schemas (kubernetes-models) and a few of the API
 * server's own rules (422 `Status` otherwise). Apply merges the applied configuration into the stored object (maps
 * merged, lists replaced); field ownership and conflicts are not modelled.
 *
 * Pods are synthesised from each Deployment (named from a hash of its pod template, so a new template means new
 * pods), and the test drives their fate with `setRollout`; Deployment status is derived from the same state.
 */

export interface KubeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
}

type Loose = any;

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
function mergePatch(target: Loose, patch: Loose): Loose {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Equality-based selectors: `k=v`, `k==v`, `k!=v`, `k` (exists), `!k` (does not). */
function matchesSelector(labels: Record<string, string> | undefined, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const [, absent, key, operator, value] = /^(!?)([^!=]+)(?:(!=|==|=)(.*))?$/.exec(term.trim()) ?? [];
    const actual = labels?.[key];
    if (!operator) return absent ? actual === undefined : actual !== undefined;
    return operator === '!=' ? actual !== value : actual === value;
  });
}

const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 422: 'Invalid' };

export async function startKubeApi(options: { token?: string } = {}) {
  const token = options.token ?? `stand-in-${randomUUID()}`;
  const objects = new Map<string, Loose>();
  const rollouts = new Map<string, Rollout>();
  const logLines = new Map<string, { at: string; line: string }[]>();
  const requests: KubeRequest[] = [];
  const injected: ({ kind: 'status'; code: number; message: string } | { kind: 'hang' })[] = [];
  let resourceVersion = 1000;
  let logClock = Date.parse('2026-11-27T12:00:00Z');

  const key = (type: ResourceType, namespace: string, name: string) => `${type.plural}/${namespace}/${name}`;
  const stored = (type: ResourceType, namespace: string) =>
    [...objects.entries()].filter(([k]) => k.startsWith(`${type.plural}/${namespace}/`)).map(([, object]) => object);

  function write(type: ResourceType, namespace: string, name: string, next: Loose, previous: Loose | undefined) {
    if (next.kind !== type.kind || next.apiVersion !== groupVersion(type)) {
      throw new HttpError(
        400,
        'BadRequest',
        `the body of the request was in an unknown format: ${next.apiVersion}/${next.kind}`,
      );
    }
    if (next.metadata?.name !== name) {
      throw new HttpError(
        400,
        'BadRequest',
        `the name of the object (${next.metadata?.name}) does not match the name on the URL (${name})`,
      );
    }
    const { status: _ignored, ...object } = next;
    object.metadata = {
      ...object.metadata,
      namespace,
      uid: previous?.metadata.uid ?? randomUUID(),
      resourceVersion: String(++resourceVersion),
      creationTimestamp: previous?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (type.hasSpec) {
      const specChanged = JSON.stringify(previous?.spec) !== JSON.stringify(object.spec);
      object.metadata.generation = (previous?.metadata.generation ?? 0) + (specChanged || !previous ? 1 : 0);
    }
    validate(type, object);
    objects.set(key(type, namespace, name), object);
    return object;
  }

  function remove(type: ResourceType, namespace: string, name: string) {
    if (!objects.delete(key(type, namespace, name))) throw notFound(type, name);
    collectGarbage();
  }

  /** Background propagation: any object whose owner uid no longer exists goes, repeatedly, as the real collector does. */
  function collectGarbage() {
    const uids = new Set([...objects.values()].map((object) => object.metadata.uid));
    const orphans = [...objects.entries()].filter(([, object]) =>
      (object.metadata.ownerReferences ?? []).some((owner: Loose) => !uids.has(owner.uid)),
    );
    for (const [orphan] of orphans) objects.delete(orphan);
    if (orphans.length) collectGarbage();
  }

  const rolloutOf = (deployment: Loose): Rollout => rollouts.get(deployment.metadata.name) ?? 'progressing';
  const withStatus = (type: ResourceType, object: Loose) =>
    type.kind === 'Deployment' ? withDeploymentStatus(object, rolloutOf(object)) : object;

  function allPods(namespace: string): Loose[] {
    const deployments = RESOURCE_TYPES.find((t) => t.kind === 'Deployment')!;
    return stored(deployments, namespace).flatMap((deployment) => podsOf(deployment, rolloutOf(deployment)));
  }

  function podLog(namespace: string, name: string, query: URLSearchParams): string {
    const pod = allPods(namespace).find((p) => p.metadata.name === name);
    if (!pod) throw notFound(RESOURCE_TYPES.find((t) => t.kind === 'Pod')!, name);
    const waiting = pod.status.containerStatuses[0]?.state?.waiting;
    if (waiting?.reason === 'ContainerCreating' || waiting?.reason === 'ImagePullBackOff') {
      const container = pod.spec.containers[0].name;
      throw new HttpError(
        400,
        'BadRequest',
        `container "${container}" in pod "${name}" is waiting to start: ${waiting.reason}`,
      );
    }
    const tail = query.has('tailLines') ? Number(query.get('tailLines')) : Number.POSITIVE_INFINITY;
    const lines = (logLines.get(name) ?? []).slice(-tail || Number.POSITIVE_INFINITY);
    const timestamps = query.get('timestamps') === 'true';
    return lines.map((entry) => `${timestamps ? `${entry.at} ` : ''}${entry.line}\n`).join('');
  }

  function route(
    method: string,
    pathname: string,
    query: URLSearchParams,
    contentType: string | undefined,
    body: string,
  ) {
    const discovery = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(pathname);
    if (discovery && method === 'GET') {
      const group = discovery[2] ?? '';
      const version = discovery[1] ?? discovery[3];
      const resources = RESOURCE_TYPES.filter((t) => t.group === group && t.version === version).map((t) => ({
        name: t.plural,
        singularName: t.kind.toLowerCase(),
        namespaced: true,
        kind: t.kind,
        verbs: t.model ? ['create', 'delete', 'get', 'list', 'patch', 'update'] : ['get', 'list'],
      }));
      if (!resources.length) throw new HttpError(404, 'NotFound', 'the server could not find the requested resource');
      return {
        status: 200,
        body: {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: group ? `${group}/${version}` : version,
          resources,
        },
      };
    }
    const match =
      /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(pathname);
    const type =
      match &&
      RESOURCE_TYPES.find(
        (t) => t.plural === match[4] && t.group === (match[1] ?? '') && t.version === (match[2] ?? 'v1'),
      );
    if (!match || !type) throw new HttpError(404, 'NotFound', 'the server could not find the requested resource');
    const [namespace, name, subresource] = [match[3], match[5], match[6]];
    if (type.kind === 'Pod') {
      if (method === 'GET' && name && subresource === 'log')
        return { status: 200, text: podLog(namespace, name, query) };
      if (method === 'GET' && !name) return { status: 200, body: list(type, allPods(namespace), query) };
      if (method === 'GET' && name) {
        const pod = allPods(namespace).find((p) => p.metadata.name === name);
        if (!pod) throw notFound(type, name);
        return { status: 200, body: pod };
      }
      throw new HttpError(405, 'MethodNotAllowed', `${method} is not supported on pods here`);
    }
    if (subresource)
      throw new HttpError(404, 'NotFound', `the server could not find the requested resource (${subresource})`);
    if (method === 'GET' && !name)
      return {
        status: 200,
        body: list(
          type,
          stored(type, namespace).map((o) => withStatus(type, o)),
          query,
        ),
      };
    if (!name) throw new HttpError(405, 'MethodNotAllowed', `${method} on a collection is not supported here`);
    const previous = objects.get(key(type, namespace, name));
    if (method === 'GET') {
      if (!previous) throw notFound(type, name);
      return { status: 200, body: withStatus(type, previous) };
    }
    if (method === 'DELETE') {
      remove(type, namespace, name);
      return {
        status: 200,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, group: type.group, kind: type.plural, uid: previous?.metadata.uid },
        },
      };
    }
    if (method === 'PATCH') return patch(type, namespace, name, previous, query, contentType, body);
    throw new HttpError(405, 'MethodNotAllowed', `${method} is not supported here`);
  }

  function patch(
    type: ResourceType,
    namespace: string,
    name: string,
    previous: Loose,
    query: URLSearchParams,
    contentType: string | undefined,
    body: string,
  ) {
    let parsed: Loose;
    try {
      parsed = contentType?.startsWith('application/apply-patch+yaml') ? parseYaml(body) : JSON.parse(body);
    } catch (error) {
      throw new HttpError(400, 'BadRequest', `error decoding patch: ${(error as Error).message}`);
    }
    if (contentType?.startsWith('application/apply-patch+yaml')) {
      if (!query.get('fieldManager'))
        throw new HttpError(400, 'BadRequest', 'PATCH requests with apply-patch+yaml need a fieldManager');
      const next = previous ? mergePatch(previous, parsed) : parsed;
      return { status: previous ? 200 : 201, body: withStatus(type, write(type, namespace, name, next, previous)) };
    }
    if (contentType?.startsWith('application/merge-patch+json')) {
      if (!previous) throw notFound(type, name);
      return {
        status: 200,
        body: withStatus(type, write(type, namespace, name, mergePatch(previous, parsed), previous)),
      };
    }
    throw new HttpError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/apply-patch+yaml, application/merge-patch+json`,
    );
  }

  function list(type: ResourceType, items: Loose[], query: URLSearchParams) {
    const selector = query.get('labelSelector');
    return {
      kind: `${type.kind}List`,
      apiVersion: groupVersion(type),
      metadata: { resourceVersion: String(resourceVersion) },
      items: items
        .filter((item) => matchesSelector(item.metadata.labels, selector))
        .map(({ kind: _k, apiVersion: _a, ...item }) => item),
    };
  }

  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const recorded: KubeRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      contentType: request.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    const send = (status: number, payload: object | string) => {
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      response.writeHead(status, { 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json' });
      response.end(text);
    };
    const next = injected.shift();
    if (next?.kind === 'hang') return;
    try {
      if (request.headers.authorization !== `Bearer ${token}`) throw new HttpError(401, 'Unauthorized', 'Unauthorized');
      if (next?.kind === 'status') {
        throw new HttpError(
          next.code,
          REASONS[next.code] ?? (next.code >= 500 ? 'InternalError' : 'BadRequest'),
          next.message,
        );
      }
      const answer = route(recorded.method, recorded.path, recorded.query, recorded.contentType, recorded.body);
      send(answer.status, 'text' in answer ? (answer.text as string) : answer.body);
    } catch (error) {
      const failure = error instanceof HttpError ? error : new HttpError(500, 'InternalError', String(error));
      send(failure.code, statusBody(failure));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const temporaryDirectories: string[] = [];

  function kubeConfig(namespace = 'default'): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'stand-in', server: url, skipTLSVerify: true }],
      users: [{ name: 'tagport', token }],
      contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'tagport', namespace }],
      currentContext: 'stand-in',
    });
    return config;
  }

  return {
    url,
    token,
    requests,
    kubeConfig,
    /** A kubeconfig file pointing at the stand-in, as `SGTM_KUBECONFIG` would name. */
    writeKubeconfig(): string {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-api-'));
      temporaryDirectories.push(directory);
      const file = path.join(directory, 'config');
      fs.writeFileSync(file, kubeConfig().exportConfig());
      return file;
    },
    /** Stored objects of a kind (as the API would return them, with status), e.g. `objects('Deployment', 'ns')`. */
    objects(kind: string, namespace: string): Loose[] {
      const type = RESOURCE_TYPES.find((t) => t.kind === kind);
      if (!type) throw new Error(`unknown kind ${kind}`);
      return type.kind === 'Pod' ? allPods(namespace) : stored(type, namespace).map((o) => withStatus(type, o));
    },
    object(kind: string, namespace: string, name: string): Loose | undefined {
      return this.objects(kind, namespace).find((object) => object.metadata.name === name);
    },
    setRollout(deployment: string, rollout: Rollout) {
      rollouts.set(deployment, rollout);
    },
    addLogLines(pod: string, lines: string[]) {
      const entries = logLines.get(pod) ?? [];
      for (const line of lines) {
        logClock += 1_000;
        entries.push({ at: new Date(logClock).toISOString().replace('Z', '123456Z'), line });
      }
      logLines.set(pod, entries);
    },
    /** The next request gets this Kubernetes `Status` answer instead (e.g. 403 Forbidden, 500 InternalError). */
    failNext(code: number, message: string) {
      injected.push({ kind: 'status', code, message });
    },
    /** The next request is read and never answered. */
    hangNext() {
      injected.push({ kind: 'hang' });
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const directory of temporaryDirectories) fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type { Rollout };
export type KubeApi = Awaited<ReturnType<typeof startKubeApi>>;
