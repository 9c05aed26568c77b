import { describe, expect, it } from 'vitest';
import { ContainerHealth } from '../../../src/gateway/health.js';
import type { OutboundClient } from '../../../src/lib/outbound.js';
import type { GatewayRoute } from '../../../src/modules/containers/traffic.js';
import { defaultSettings } from '../../../src/modules/containers/settings.js';

const route = (changes: Partial<GatewayRoute>): GatewayRoute => ({
  containerId: 'ctr_1',
  status: 'running',
  upstreamUrl: null,
  runtime: 'builtin',
  gtmContainerId: 'GTM-ABC1234',
  settings: defaultSettings('loader1'),
  endpoints: [],
  preview: false,
  ...changes,
});

describe('ContainerHealth for the built-in runtime', () => {
  const outbound = {} as OutboundClient;

  it('is healthy when the container runs and the runtime is ready', async () => {
    expect(await new ContainerHealth(outbound, 1000, () => true).problem(route({}))).toBeNull();
  });

  it('answers runtime_not_ready when the runtime is not ready', async () => {
    expect(await new ContainerHealth(outbound, 1000, () => false).problem(route({}))).toMatchObject({
      code: 'runtime_not_ready',
    });
  });

  it('answers container_not_running before anything else', async () => {
    expect(await new ContainerHealth(outbound, 1000, () => true).problem(route({ status: 'stopped' }))).toMatchObject({
      code: 'container_not_running',
    });
  });

  it('still answers no_upstream for an upstream container without an upstream URL', async () => {
    expect(await new ContainerHealth(outbound, 1000, () => true).problem(route({ runtime: 'upstream' }))).toMatchObject(
      {
        code: 'no_upstream',
      },
    );
  });
});
