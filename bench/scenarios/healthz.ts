// Scenario 1: GET /healthz as fast as it is answered. No worker is involved,
// so this is the ceiling of the uWS front end and the pipeline (on a small
// machine, often of autocannon itself: it shares the cores).
import { measure, type LoadFigures } from '../autocannon.js';
import type { ChildServer } from '../child.js';
import type { Settings } from '../settings.js';

/** Enough to keep one event loop busy without measuring the kernel's accept queue. */
export const HEALTHZ_CONNECTIONS = 50;

export interface HealthzResult {
  readonly connections: number;
  readonly server: LoadFigures;
}

export async function healthzScenario(settings: Settings, server: ChildServer): Promise<HealthzResult> {
  const figures = await measure({ url: `${server.base}/healthz`, connections: HEALTHZ_CONNECTIONS }, settings.warmupSeconds, settings.seconds);
  return { connections: HEALTHZ_CONNECTIONS, server: figures };
}
