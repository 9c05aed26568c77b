import { request as upstreamRequest } from 'undici';
import type { OutboundClient } from '../lib/outbound.js';
import type { GatewayRoute } from '../modules/containers/traffic.js';
import { upstreamTarget } from './upstream.js';

/** A container's health is probed at most this often, so monitors and load balancers don't amplify onto its upstream. */
const HEALTH_CACHE_MS = 5_000;
const HEALTH_PROBE_TIMEOUT_MS = 3_000;
const MAX_CACHED_PROBES = 10_000;

/** Why a container is not healthy, as the gateway's error code and message. */
export interface HealthProblem {
  code: 'container_not_running' | 'no_upstream' | 'upstream_unreachable' | 'runtime_not_ready' | 'no_ready_replicas';
  message: string;
}

/**
 * Answers `/healthz` on a container's hostnames: running, and its upstream answers (probed, cached a few seconds)
 * or, for the built-in runtime, the runtime is ready.
 */
export class ContainerHealth {
  private readonly probes = new Map<
    string,
    { upstreamUrl: string; at: number; problem: Promise<HealthProblem | null> }
  >();

  constructor(
    private readonly outbound: OutboundClient,
    private readonly upstreamTimeoutMs: number,
    private readonly builtinReady: () => boolean = () => false,
    /** Runtime `sgtm`: the container's ready tagging replicas, when the route at hand does not carry them. */
    private readonly taggingEndpoints: (containerId: string) => Promise<string[]> = async () => [],
  ) {}

  clear(): void {
    this.probes.clear();
  }

  /** Drops a container's cached probe (it changed). */
  forget(containerId: string): void {
    this.probes.delete(containerId);
  }

  /**
   * Null when the container is running and its upstream answers; otherwise why not. The gateway's `/healthz` and the
   * API's `health` of a container both ask this.
   */
  problem(
    route: Pick<GatewayRoute, 'containerId' | 'status' | 'upstreamUrl' | 'runtime'> & { endpoints?: string[] },
  ): Promise<HealthProblem | null> {
    if (route.status !== 'running')
      return Promise.resolve({ code: 'container_not_running', message: `The container is ${route.status}.` });
    if (route.runtime === 'sgtm') return this.replicasProblem(route.containerId, route.endpoints);
    if (route.runtime === 'builtin')
      return Promise.resolve(
        this.builtinReady()
          ? null
          : { code: 'runtime_not_ready', message: "The gateway's built-in runtime is not ready." },
      );
    if (!route.upstreamUrl)
      return Promise.resolve({
        code: 'no_upstream',
        message: 'The container has no upstream tagging server configured.',
      });
    const cached = this.probes.get(route.containerId);
    if (cached && cached.upstreamUrl === route.upstreamUrl && Date.now() - cached.at < HEALTH_CACHE_MS)
      return cached.problem;
    const problem = this.probeUpstream(route.upstreamUrl);
    if (this.probes.size > MAX_CACHED_PROBES) this.probes.clear();
    this.probes.set(route.containerId, { upstreamUrl: route.upstreamUrl, at: Date.now(), problem });
    return problem;
  }

  /** `sgtm`: healthy while the orchestrator reports a tagging replica ready (it probes their `/healthz` itself). */
  private async replicasProblem(containerId: string, endpoints?: string[]): Promise<HealthProblem | null> {
    const ready = endpoints ?? (await this.taggingEndpoints(containerId));
    if (ready.length > 0) return null;
    return { code: 'no_ready_replicas', message: "None of the container's tagging servers is ready." };
  }

  /**
   * One GET of the upstream's own `/healthz` (what server-side GTM answers), under its base path. The upstream
   * is healthy when it answers below 500: a tagging server without a health path still proves it is up.
   */
  private async probeUpstream(upstreamUrl: string): Promise<HealthProblem | null> {
    const unreachable = (message: string): HealthProblem => ({ code: 'upstream_unreachable', message });
    try {
      const target = upstreamTarget(upstreamUrl, '/healthz');
      if (!target) return unreachable("The container's upstream URL cannot be used.");
      const timeout = Math.min(this.upstreamTimeoutMs, HEALTH_PROBE_TIMEOUT_MS);
      const response = await upstreamRequest(target, {
        method: 'GET',
        headers: { 'user-agent': 'Tagport-Gateway/1.0 (health check)' },
        dispatcher: this.outbound.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
      await response.body.dump();
      if (response.statusCode >= 500)
        return unreachable(`The container's tagging server answered its health check with ${response.statusCode}.`);
      return null;
    } catch {
      return unreachable("The container's tagging server could not be reached.");
    }
  }
}
