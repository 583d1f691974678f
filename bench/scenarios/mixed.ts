// Scenario 4: renders at saturation plus paced GET /healthz probes at the
// same time. Rendering happens on worker threads, so the main thread should
// answer probes about as fast as when it is idle; the same probes are run
// alone first as the baseline.
import { measure, type LoadFigures } from '../autocannon.js';
import type { ChildServer } from '../child.js';
import { generateLoad, type LoadResult, type StatusFigures } from '../loadgen.js';
import type { Settings } from '../settings.js';
import { ratio } from '../stats.js';
import { renderTarget, saturation } from './render.js';

/** 100 probes a second on one connection: a busy balancer, and enough samples for a p99 in 10 s. */
const PROBE_INTERVAL_MS = 10;

export interface MixedResult {
  readonly renderConnections: number;
  readonly probeIntervalMs: number;
  /** Probes alone. */
  readonly healthzIdle: StatusFigures | undefined;
  /** Probes while renders keep every worker busy. */
  readonly healthzUnderRenders: StatusFigures | undefined;
  readonly p99UnderRendersToIdle: number | undefined;
  readonly renders: LoadFigures;
  readonly probeErrors: number;
}

export async function mixedScenario(settings: Settings, server: ChildServer): Promise<MixedResult> {
  const probes = (seconds: number): Promise<LoadResult> =>
    generateLoad({ url: `${server.base}/healthz`, method: 'GET', headers: {}, connections: 1, seconds, intervalMs: PROBE_INTERVAL_MS });

  await probes(settings.warmupSeconds);
  const idle = await probes(settings.seconds);

  const rendering = measure(renderTarget(server.base, saturation(settings)), settings.warmupSeconds, settings.seconds);
  // Probes start when the renders' warm-up ends, so both measure the same window.
  await new Promise((resolve) => setTimeout(resolve, settings.warmupSeconds * 1000));
  const [renders, busy] = await Promise.all([rendering, probes(settings.seconds)]);

  const healthzIdle = idle.byStatus['200'];
  const healthzUnderRenders = busy.byStatus['200'];
  return {
    renderConnections: saturation(settings),
    probeIntervalMs: PROBE_INTERVAL_MS,
    healthzIdle,
    healthzUnderRenders,
    p99UnderRendersToIdle: healthzIdle && healthzUnderRenders ? ratio(healthzUnderRenders.p99Ms, healthzIdle.p99Ms) : undefined,
    renders,
    probeErrors: idle.errors + busy.errors,
  };
}
