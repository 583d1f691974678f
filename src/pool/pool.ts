// The one worker pool. Every CPU-bound task goes through here, so its counts
// are the truth for /health and /metrics. Admission is bounded: when every
// thread is busy and `maxQueue` tasks already wait, a task is refused at once
// (503 worker-pool-exhausted) instead of queueing without bound.
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import type { OptionsOf, Outcome, TaskInput, TaskName, ValueOf, WarmOptions } from '../../workers/protocol.js';
import { TaskStats } from '../metrics/task-stats.js';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.js';

/** How long a task may keep running after its caller left before its thread is stopped. */
export const ABORT_GRACE_MS = 250;

export interface PoolOptions {
  /** Absolute path of the worker module (workers/index.js unless a test swaps it). */
  readonly filename: string;
  readonly threads: number;
  readonly maxQueue: number;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  readonly breakerThreshold: number;
  readonly breakerCooldownMs: number;
  /** The breaker's clock (tests drive its cooldown without waiting). Default: Date.now. */
  readonly breakerNow?: () => number;
  readonly workerData?: unknown;
}

/** Why a task produced no Outcome. */
export type PoolFailure =
  /** Every thread busy and the queue full, or the breaker open: 503. */
  | { readonly reason: 'saturated' | 'breaker-open'; readonly retryAfterSeconds: number }
  /** The processing timeout passed; the worker was terminated and replaced: 504. */
  | { readonly reason: 'timeout' }
  /** The caller's signal fired (client went away); the worker was freed. */
  | { readonly reason: 'aborted' }
  /** The worker ran out of its heap (resourceLimits) and was replaced. */
  | { readonly reason: 'out-of-memory' }
  /** The task threw or the worker exited: a bug, 500. */
  | { readonly reason: 'crashed'; readonly error: unknown };

export type PoolResult<Name extends TaskName = TaskName> =
  | { readonly ok: true; readonly outcome: Outcome<ValueOf<Name>>; readonly roundTripMs: number }
  | ({ readonly ok: false } & PoolFailure);

export interface RunOptions {
  /** Overrides the pool's processing timeout (jobs have their own). */
  readonly timeoutMs?: number;
  /** How long a running task may go on after `signal` fires (a cancelled job: 0). */
  readonly abortGraceMs?: number;
}

export interface PoolStats {
  readonly total: number;
  readonly busy: number;
  readonly idle: number;
  readonly queued: number;
  /** Tasks that may wait for a thread before the pool refuses (PLATEN_MAX_QUEUE). */
  readonly maxQueue: number;
  readonly breaker: BreakerState;
}

/** The metrics' name for each way a task can end without an Outcome. */
const ENDINGS = {
  saturated: 'saturated',
  'breaker-open': 'breaker_open',
  timeout: 'timeout',
  aborted: 'aborted',
  'out-of-memory': 'out_of_memory',
  crashed: 'crashed',
} as const satisfies Record<PoolFailure['reason'], string>;

export class WorkerPool {
  readonly #piscina: Piscina<TaskInput<OptionsOf<TaskName>>, Outcome>;
  readonly #breaker: CircuitBreaker;
  /** Tasks handed to Piscina and not yet settled (running + queued). */
  #inFlight = 0;
  #meanTaskMs = 0;
  /** Wait and run times and endings per task name, for /metrics. */
  readonly tasks = new TaskStats();

  constructor(private readonly options: PoolOptions) {
    this.#piscina = new Piscina({
      filename: options.filename,
      minThreads: options.threads,
      maxThreads: options.threads,
      // One task per worker: a long render occupies its thread (render spec section 8).
      concurrentTasksPerWorker: 1,
      // Admission is ours (run() refuses at threads + maxQueue in flight);
      // Piscina's own limit sits above it and is never the one that refuses.
      maxQueue: options.maxQueue + options.threads,
      // Threads are kept warm: spawning one costs tens of ms and module loading.
      idleTimeout: Number.MAX_SAFE_INTEGER,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
      // Piscina's histograms rebuild a full summary on every read (measured:
      // 0.25 ms of main-thread time per read); we keep our own running mean.
      recordTiming: false,
      workerData: options.workerData,
    });
    this.#breaker = new CircuitBreaker({ threshold: options.breakerThreshold, cooldownMs: options.breakerCooldownMs, now: options.breakerNow });
    // A worker that throws after its task settled emits 'error' on the pool; Piscina
    // replaces the thread. Without a listener the process would crash.
    this.#piscina.on('error', () => this.#breaker.fault({ duringTask: false }));
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  get memoryMb(): number {
    return this.options.memoryMb;
  }

  get stats(): PoolStats {
    const queued = this.#piscina.queueSize;
    const busy = Math.min(this.options.threads, Math.max(0, this.#inFlight - queued));
    return {
      total: this.options.threads,
      busy,
      idle: this.options.threads - busy,
      queued,
      maxQueue: this.options.maxQueue,
      breaker: this.#breaker.state,
    };
  }

  /** Exponentially weighted mean of task time in ms (worker-measured), 0 before the first task. */
  get meanRunMs(): number {
    return this.#meanTaskMs;
  }

  /**
   * Runs a task. The body's ArrayBuffer is transferred: the caller must not
   * touch it afterwards. `signal` lets the caller abandon the task (client
   * disconnect); the processing timeout is applied here.
   */
  async run<Name extends TaskName>(name: Name, input: TaskInput<OptionsOf<Name>>, signal: AbortSignal, options: RunOptions = {}): Promise<PoolResult<Name>> {
    const result = await this.#run<Name>(name, input, signal, options);
    if (result.ok) {
      const runMs = result.outcome.timings.taskMs;
      this.tasks.completed(name, Math.max(0, result.roundTripMs - runMs) / 1000, runMs / 1000);
    } else {
      this.tasks.failed(name, ENDINGS[result.reason]);
    }
    return result;
  }

  async #run<Name extends TaskName>(name: Name, input: TaskInput<OptionsOf<Name>>, signal: AbortSignal, options: RunOptions): Promise<PoolResult<Name>> {
    // A caller that left during an earlier await (a store, a limiter) gets no task.
    if (signal.aborted) return { ok: false, reason: 'aborted' };
    if (this.#inFlight >= this.options.threads + this.options.maxQueue) {
      return { ok: false, reason: 'saturated', retryAfterSeconds: this.#retryAfterSeconds() };
    }
    if (!this.#breaker.admit()) {
      return { ok: false, reason: 'breaker-open', retryAfterSeconds: this.#breaker.retryAfterSeconds };
    }
    // One controller per task, fed by a timer and the caller's signal. Not
    // AbortSignal.any/AbortSignal.timeout: on Node 20 composites with timeout
    // sources and listeners are retained forever (nodejs/node#54614, #55351).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs ?? this.options.timeoutMs);
    // A caller that goes away aborts its task, but not at once: aborting a
    // *running* task terminates its thread, and a cold replacement costs far
    // more than letting a short task end (measured: a disconnect during a 2 ms
    // render cost a thread start and module reload). Long tasks are still
    // stopped ABORT_GRACE_MS after the caller left.
    let graceTimer: NodeJS.Timeout | undefined;
    const onCallerAbort = () => {
      graceTimer = setTimeout(() => controller.abort(), options.abortGraceMs ?? ABORT_GRACE_MS);
    };
    signal.addEventListener('abort', onCallerAbort, { once: true });
    const started = performance.now();
    this.#inFlight += 1;
    try {
      // The worker's answer has the type TaskMap gives this name: test/unit/task-map.test.ts
      // checks that workers/index.ts exports each task with exactly that type.
      const outcome = (await this.#piscina.run(input, {
        name,
        signal: controller.signal,
        transferList: input.body.byteLength > 0 ? [input.body] : [],
      })) as Outcome<ValueOf<Name>>;
      this.#breaker.success();
      this.#meanTaskMs = this.#meanTaskMs === 0 ? outcome.timings.taskMs : this.#meanTaskMs * 0.9 + outcome.timings.taskMs * 0.1;
      if (signal.aborted) return { ok: false, reason: 'aborted' };
      return { ok: true, outcome, roundTripMs: performance.now() - started };
    } catch (error) {
      return this.#failure(error, timedOut);
    } finally {
      this.#inFlight -= 1;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Resolves once every thread has loaded the task modules (see
   * workers/warm.ts). Rejects when they do not start within `timeoutMs`.
   */
  async warm(timeoutMs = 30_000): Promise<void> {
    const barrier = new SharedArrayBuffer(4);
    const options: WarmOptions = { barrier, threads: this.options.threads, timeoutMs };
    const runs = Array.from({ length: this.options.threads }, () =>
      this.#piscina.run({ body: new ArrayBuffer(0), length: 0, options }, { name: 'warm' }),
    );
    for (const outcome of await Promise.all(runs)) {
      if (!outcome.ok) throw new Error(`the worker pool did not start: ${outcome.detail}`);
    }
  }

  async close(): Promise<void> {
    await this.#piscina.close();
  }

  /**
   * Only crashes count against the circuit breaker. Timeouts and running out
   * of memory are answered (504, 422) and the thread replaced, but they are
   * what a client's own heavy input does: counting them would let five large
   * documents take the service down for everyone.
   */
  #failure(error: unknown, timedOut: boolean): PoolResult<never> {
    if (timedOut) {
      this.#breaker.release();
      return { ok: false, reason: 'timeout' };
    }
    const name = (error as { name?: unknown } | null)?.name;
    const code = (error as { code?: unknown } | null)?.code;
    if (name === 'AbortError') {
      this.#breaker.release();
      return { ok: false, reason: 'aborted' };
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      this.#breaker.release();
      return { ok: false, reason: 'out-of-memory' };
    }
    this.#breaker.fault();
    return { ok: false, reason: 'crashed', error };
  }

  /** How long until a queue slot is likely free: the queue's share of work per thread. */
  #retryAfterSeconds(): number {
    const waitMs = (this.meanRunMs * (this.options.maxQueue + this.options.threads)) / this.options.threads;
    return Math.max(1, Math.ceil(waitMs / 1000));
  }
}
