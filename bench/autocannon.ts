// autocannon driven from code (fastify/benchmarks lib/bench.js): a warm-up
// whose results are thrown away, then the measured run. Only the figures the
// report needs are kept.
import autocannon from 'autocannon';
import { generateLoad } from './loadgen.js';
import { round, type Throughput } from './stats.js';

export interface Target {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  readonly connections: number;
}

/** requestsPerSecond counts 2xx answers; latencies are of 2xx answers, in whole milliseconds (autocannon's resolution). */
export interface LoadFigures extends Throughput {
  readonly ok: number;
  /** Answers other than 2xx, by status. */
  readonly otherStatuses: Record<string, number>;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly seconds: number;
}

export async function measure(target: Target, warmupSeconds: number, seconds: number): Promise<LoadFigures> {
  await warmUp(target, warmupSeconds);
  return figures(await once(target, seconds));
}

/**
 * The warm-up is not an autocannon run: autocannon ends a run by destroying
 * connections with requests still in flight, the server aborts the render
 * of a client that left, and Piscina aborts a running task by terminating
 * its thread (piscina dist/index.js: "Already running: We cancel the Worker
 * this is running on"). The measured run would then start on new, cold
 * threads. bench/loadgen.ts lets the requests in flight finish.
 */
async function warmUp(target: Target, seconds: number): Promise<void> {
  const { url, method = 'GET', headers = {}, body, connections } = target;
  await generateLoad({ url, method, headers, connections, seconds, ...(body !== undefined ? { body } : {}) });
}

function once(target: Target, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body !== undefined ? { body: target.body } : {}),
    connections: target.connections,
    pipelining: 1,
    duration: seconds,
    // A render takes milliseconds; a 10 s timeout only fires on a real hang.
    timeout: 10,
  });
}

function figures(result: autocannon.Result): LoadFigures {
  const otherStatuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && stats.count !== undefined) otherStatuses[status] = stats.count;
  }
  return {
    requestsPerSecond: round(result['2xx'] / result.duration, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    ok: result['2xx'],
    otherStatuses,
    errors: result.errors,
    seconds: result.duration,
  };
}
