// The Prometheus exposition of GET /metrics: a prom-client Registry of our
// own (never the global one, so two servers in one process, as in the tests,
// do not share series), filled at scrape time from the plain accumulators the
// hot paths write (request-stats.ts, task-stats.ts) and from the pool's live
// counts. Nothing here runs per request.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, type Buckets } from './buckets.js';
import { methodLabel, type RequestStats } from './request-stats.js';
import { TASK_ENDINGS, type TaskStats } from './task-stats.js';

/** The pool's live counts (src/pool/pool.ts PoolStats). */
export interface PoolSnapshot {
  readonly busy: number;
  readonly idle: number;
  readonly queued: number;
  readonly maxQueue: number;
  readonly breaker: 'closed' | 'open' | 'half_open';
}

export interface MetricSources {
  readonly requests: RequestStats;
  readonly tasks: TaskStats;
  readonly pool: () => PoolSnapshot;
  /** Requests accepted and not yet answered (src/http/lifecycle.ts). */
  readonly inFlight: () => number;
  /** Request-body bytes held against PLATEN_BODY_BUDGET_BYTES (src/http/body-budget.ts). */
  readonly bodyBytesHeld: () => number;
}

const BREAKER_STATES = ['closed', 'open', 'half_open'] as const;

/** The accelerator spec's two values: a 2xx answer is a success, anything else (4xx, 5xx, 499 client gone) an error. */
function outcome(status: number): 'success' | 'error' {
  return status >= 200 && status < 300 ? 'success' : 'error';
}

export function metricsRegistry(sources: MetricSources): Registry {
  const registry = new Registry();
  const registers = [registry];
  const { requests, tasks } = sources;

  new Counter({
    name: 'accel_requests_total',
    help: 'Accelerator API requests answered, by operation, outcome (success = 2xx, error = anything else) and HTTP status code.',
    labelNames: ['operation', 'status', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of requests.series()) {
        if (series.family !== 'accel') continue;
        for (const [key, n] of series.counts) {
          const status = key % 1000;
          this.inc({ operation: series.operation, status: outcome(status), code: String(status) }, n);
        }
      }
    },
  });

  new BucketHistogram(registry, 'accel_request_duration_seconds', 'Accelerator API request duration in seconds, from arrival to the last byte handed to the socket.', function* () {
    for (const series of requests.series()) {
      if (series.family === 'accel' && series.durations[0] !== undefined) yield [{ operation: series.operation }, series.durations[0]];
    }
  });

  new Counter({
    name: 'platen_render_requests_total',
    help: 'Render API requests answered (probes included), by route pattern, method, outcome (success = 2xx) and HTTP status code.',
    labelNames: ['route', 'method', 'status', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of requests.series()) {
        if (series.family !== 'render') continue;
        for (const [key, n] of series.counts) {
          const status = key % 1000;
          this.inc({ route: series.path, method: methodLabel(Math.floor(key / 1000)), status: outcome(status), code: String(status) }, n);
        }
      }
    },
  });

  new BucketHistogram(registry, 'platen_render_request_duration_seconds', 'Render API request duration in seconds, by route pattern and method.', function* () {
    for (const series of requests.series()) {
      if (series.family !== 'render') continue;
      for (const [m, buckets] of series.durations.entries()) if (buckets !== undefined) yield [{ route: series.path, method: methodLabel(m) }, buckets];
    }
  });

  new Gauge({
    name: 'platen_http_requests_in_flight',
    help: 'Requests accepted and not yet answered, on both APIs.',
    registers,
    collect() {
      this.set(sources.inFlight());
    },
  });

  new Gauge({
    name: 'platen_body_budget_held_bytes',
    help: 'Request-body bytes held by requests in flight, against PLATEN_BODY_BUDGET_BYTES.',
    registers,
    collect() {
      this.set(sources.bodyBytesHeld());
    },
  });

  // The pool's live counts (a few field reads each).
  const snapshot = sources.pool;
  new Gauge({
    name: 'platen_pool_workers',
    help: 'Worker threads of the shared pool, by state (busy + idle = PLATEN_WORKERS).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const { busy, idle } = snapshot();
      this.set({ state: 'busy' }, busy);
      this.set({ state: 'idle' }, idle);
    },
  });
  new Gauge({
    name: 'platen_pool_queue_length',
    help: 'Tasks waiting for a worker thread.',
    registers,
    collect() {
      this.set(snapshot().queued);
    },
  });
  new Gauge({
    name: 'platen_pool_queue_limit',
    help: 'Tasks that may wait before the pool answers 503 worker-pool-exhausted (PLATEN_MAX_QUEUE).',
    registers,
    collect() {
      this.set(snapshot().maxQueue);
    },
  });
  new Gauge({
    name: 'platen_circuit_breaker_state',
    help: 'The worker circuit breaker: 1 for its current state (closed, open or half_open), 0 for the others.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const current = snapshot().breaker;
      for (const state of BREAKER_STATES) this.set({ state }, state === current ? 1 : 0);
    },
  });

  new Counter({
    name: 'platen_pool_tasks_total',
    help: 'Pool tasks by task name and ending: completed (the worker answered, including expected failures such as invalid input), saturated, breaker_open, timeout, aborted, out_of_memory, crashed.',
    labelNames: ['task', 'ending'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of tasks.series()) {
        series.endings.forEach((n, i) => {
          if (n > 0) this.inc({ task: series.task, ending: TASK_ENDINGS[i] as string }, n);
        });
      }
    },
  });
  new BucketHistogram(registry, 'platen_pool_task_wait_seconds', 'Seconds a completed task waited for a worker thread (queueing and hand-over), by task name.', function* () {
    for (const series of tasks.series()) yield [{ task: series.task }, series.wait];
  });
  new BucketHistogram(registry, 'platen_pool_task_run_seconds', 'Seconds a completed task ran in its worker, as the worker measured it, by task name.', function* () {
    for (const series of tasks.series()) yield [{ task: series.task }, series.run];
  });

  // Process figures (CPU, memory, event-loop delay, GC) with their standard
  // names. This starts an event-loop-delay monitor (one timer at 10 ms) and a
  // GC observer that last as long as the process: prom-client 15 cannot stop
  // them. One server per process in production; only tests start several.
  collectDefaultMetrics({ register: registry });
  return registry;
}

type Labels = Record<string, string>;

/**
 * A histogram whose buckets live in our own accumulators. prom-client's
 * Histogram keeps its counts in a private map and can only be fed one
 * observation at a time, so this subclass answers `get()` (the metric object
 * of prom-client's public typings) from the accumulators instead; the
 * registry reads `getForPromString()` when a metric has one (prom-client
 * 15 lib/registry.js), so it answers the same.
 */
class BucketHistogram extends Histogram<string> {
  readonly #name: string;
  readonly #help: string;
  readonly #read: () => Iterable<readonly [Labels, Buckets]>;

  constructor(registry: Registry, name: string, help: string, read: () => Iterable<readonly [Labels, Buckets]>) {
    super({ name, help, buckets: [...DURATION_BUCKETS], registers: [registry] });
    this.#name = name;
    this.#help = help;
    this.#read = read;
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<string>['get']>>> {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    const bucket = `${this.#name}_bucket`;
    for (const [labels, buckets] of this.#read()) {
      const cumulative = buckets.cumulative();
      buckets.bounds.forEach((le, i) => values.push({ metricName: bucket, labels: { ...labels, le }, value: cumulative[i] as number }));
      values.push({ metricName: bucket, labels: { ...labels, le: '+Inf' }, value: buckets.count });
      values.push({ metricName: `${this.#name}_sum`, labels, value: buckets.sum });
      values.push({ metricName: `${this.#name}_count`, labels, value: buckets.count });
    }
    const metric = { name: this.#name, help: this.#help, type: 'histogram', aggregator: 'sum', values };
    return metric as unknown as Awaited<ReturnType<Histogram<string>['get']>>;
  }

  getForPromString(): ReturnType<BucketHistogram['get']> {
    return this.get();
  }
}
