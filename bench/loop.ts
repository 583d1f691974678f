// Runs an async task back to back on `concurrency` loops for a fixed time and
// records each call's latency: the closed-loop driver for the baselines that
// have no HTTP in them (bare pool, in-process), so they are loaded the same
// way autocannon loads a server.
import { performance } from 'node:perf_hooks';
import { Samples, round, type Throughput } from './stats.js';

export async function loopFor(seconds: number, concurrency: number, task: () => Promise<void>): Promise<Throughput> {
  const samples = new Samples();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await task();
      samples.add(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const latency = samples.latency();
  return { requestsPerSecond: round(samples.count / elapsed, 1), p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, maxMs: latency.maxMs };
}

/** A warm-up whose figures are thrown away, then the measured run. */
export async function warmThenLoop(warmupSeconds: number, seconds: number, concurrency: number, task: () => Promise<void>): Promise<Throughput> {
  await loopFor(warmupSeconds, concurrency, task);
  return loopFor(seconds, concurrency, task);
}
