import type { TaggingServerSpec } from '../../src/modules/tagging-servers/orchestrator.js';
import type { KubeApi } from './kube-api.js';

// What the kubernetes driver's tests share: a namespace, Google's image, a config string and specs that differ.

export const NAMESPACE = 'tagport-sgtm';
export const IMAGE = 'gcr.io/cloud-tagging-10302018/gtm-cloud-image';
export const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=s3cr3t-4uth-t0ken').toString('base64');

let counter = 0;
/** A spec with a container id of its own, so that tests sharing one stand-in do not see each other's objects. */
export function specFor(overrides: Partial<TaggingServerSpec> = {}): TaggingServerSpec {
  counter += 1;
  return {
    containerId: `ctr_01jdv3k2m8q4r7s9t0v1w2x${String(counter).padStart(3, '0')}`,
    tenantId: 'ten_01jdv3k2m8q4r7s9t0v1w2aaaa',
    config: CONFIG,
    previewServerUrl: 'https://preview.example.test',
    version: '2.4.0',
    replicas: { min: 2, max: 5 },
    resources: { cpuMillis: 250, memoryMiB: 512 },
    ...overrides,
  };
}

export const nameOf = (spec: TaggingServerSpec) => `sgtm-${spec.containerId.replace(/^ctr_/, '')}`;

export const lastRequest = (kube: KubeApi, method: string) => kube.requests.filter((r) => r.method === method).at(-1);

export function podsOf(kube: KubeApi, spec: TaggingServerSpec, role: 'tagging' | 'preview' = 'tagging') {
  return kube
    .objects('Pod', NAMESPACE)
    .filter(
      (p) =>
        p.metadata.labels['tagport.io/container'] === spec.containerId && p.metadata.labels['tagport.io/role'] === role,
    );
}

export function makeAvailable(kube: KubeApi, spec: TaggingServerSpec) {
  kube.setRollout(nameOf(spec), 'available');
  kube.setRollout(`${nameOf(spec)}-preview`, 'available');
}
