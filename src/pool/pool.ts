// The one worker pool. Every CPU-bound task goes through here, so its counts
// are the truth for /health and /metrics. Admission is bounded: when every
// thread is busy and the queue is full (or standing, see scheduler.ts), a
// task is refused at once (503 worker-pool-exhausted) instead of queueing
// without bound. Tasks wait in our scheduler, not in Piscina's queue: a task
// is handed to Piscina only when a thread is free, so the scheduler decides
// the order (synchronous work first, fair between clients).
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import type { DeploymentCheckOptions, OptionsOf, Outcome, TaskInput, TaskName, ValueOf, WarmOptions } from '../../workers/protocol.js';
import type { Tier } from '../auth/tiers.js';
import { TaskStats } from '../metrics/task-stats.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { widenHeapGrowth } from './heap-growth.js';
import { workerResourceLimits } from './worker-limits.js';
import type { FairClient } from './fair-queue.js';
import type { CallerSignal, PoolFailure, PoolOptions, PoolResult, PoolStats, RunOptions } from './pool-types.js';
import { Scheduler, type Ticket } from './scheduler.js';
import { TaskAbort } from './task-abort.js';
import { ThreadReadiness, type Placement } from './thread-readiness.js';

export type { CallerSignal, PoolFailure, PoolOptions, PoolResult, PoolStats, RunOptions, SaturationCause } from './pool-types.js';

/** How long a task may keep running after its caller left before its thread is stopped. */
export const ABORT_GRACE_MS = 250;

/** The metrics' name for each way a task can end without an Outcome. */
const ENDINGS = {
  saturated: 'saturated',
  'breaker-open': 'breaker_open',
  timeout: 'timeout',
  aborted: 'aborted',
  'out-of-memory': 'out_of_memory',
  crashed: 'crashed',
} as const satisfies Record<PoolFailure['reason'], string>;

/** Listener options shared by every task (a literal per call was an allocation per request). */
const ONCE = Object.freeze({ once: true });

/** The client of tasks that name none (internal work). */
const ANONYMOUS: FairClient = Object.freeze({ id: '', weight: 1 });

type Waited = 'started' | 'evicted' | 'withdrawn';

export class WorkerPool {
  readonly #piscina: Piscina<TaskInput<OptionsOf<TaskName>>, Outcome>;
  readonly #breaker: CircuitBreaker;
  readonly #scheduler: Scheduler;
  readonly #threads: ThreadReadiness;
  #meanTaskMs = 0;
  /** Wait and run times and endings per task name, for /metrics. */
  readonly tasks = new TaskStats();

  constructor(private readonly options: PoolOptions) {
    // Before the first thread starts: a capped worker heap otherwise collects every few large requests (heap-growth.ts).
    widenHeapGrowth();
    this.#piscina = new Piscina({
      filename: options.filename,
      minThreads: options.threads,
      maxThreads: options.threads,
      // One task per worker: a long render occupies its thread (render spec section 8).
      concurrentTasksPerWorker: 1,
      // Admission and order are ours: a task reaches Piscina only when a
      // thread is free. Its queue holds at most the tasks waiting for a
      // thread that is being replaced after an abort.
      maxQueue: options.maxQueue + options.threads,
      // Threads are kept warm: spawning one costs tens of ms and module loading.
      idleTimeout: Number.MAX_SAFE_INTEGER,
      resourceLimits: workerResourceLimits(options.memoryMb),
      // Piscina's histograms rebuild a full summary on every read (measured:
      // 0.25 ms of main-thread time per read); we keep our own running mean.
      recordTiming: false,
      workerData: options.workerData,
    });
    // Before any thread reports ready ('workerCreate' comes in a microtask for the first threads).
    this.#threads = new ThreadReadiness(options.threads, this.#piscina);
    this.#breaker = new CircuitBreaker({ threshold: options.breakerThreshold, cooldownMs: options.breakerCooldownMs, now: options.breakerNow });
    this.#scheduler = new Scheduler({
      threads: options.threads,
      maxQueue: options.maxQueue,
      targetMs: options.queueTargetMs,
      intervalMs: options.queueIntervalMs,
      // The scheduler's own tests drive its clock (test/unit/scheduler.test.ts).
      now: () => performance.now(),
    });
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

  /** A client as the scheduler shares between them: its label, and its key's weight or else its tier's. */
  client(principal: { readonly label: string; readonly tier: Tier; readonly weight: number | undefined }): FairClient {
    return { id: principal.label, weight: principal.weight ?? this.options.tierWeights[principal.tier] };
  }

  get stats(): PoolStats {
    const busy = Math.min(this.options.threads, this.#scheduler.running);
    return {
      total: this.options.threads,
      busy,
      idle: this.options.threads - busy,
      queued: this.#scheduler.waiting,
      standing: this.#scheduler.standing,
      maxQueue: this.options.maxQueue,
      starting: this.#threads.starting,
      breaker: this.#breaker.state,
    };
  }

  /**
   * Whether a background task run now would start on a thread at once
   * (scheduler.ts); a job may then be validated by its own render instead
   * of by a task of its own (src/jobs/runner.ts).
   */
  get backgroundStartsNow(): boolean {
    return this.#threads.starting === 0 && this.#breaker.state === 'closed' && this.#scheduler.backgroundStartsNow;
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
  async run<Name extends TaskName>(name: Name, input: TaskInput<OptionsOf<Name>>, signal: CallerSignal, options: RunOptions = {}): Promise<PoolResult<Name>> {
    const result = await this.#run<Name>(name, input, signal, options);
    if (result.ok) {
      const runMs = result.outcome.timings.taskMs;
      this.tasks.completed(name, Math.max(0, result.roundTripMs - runMs) / 1000, runMs / 1000);
    } else {
      this.tasks.failed(name, ENDINGS[result.reason]);
    }
    return result;
  }

  async #run<Name extends TaskName>(name: Name, input: TaskInput<OptionsOf<Name>>, signal: CallerSignal, options: RunOptions): Promise<PoolResult<Name>> {
    // A caller that left during an earlier await (a store, a limiter) gets no task.
    if (signal.aborted) return { ok: false, reason: 'aborted' };
    if (!this.#breaker.admit()) {
      return { ok: false, reason: 'breaker-open', retryAfterSeconds: this.#breaker.retryAfterSeconds };
    }
    const started = performance.now();
    // Most tasks find a thread free and start inside submit(): they are told
    // so synchronously, and only a task that has to wait gets a promise to await.
    let how: Waited | undefined;
    let settle = (waited: Waited): void => void (how ??= waited);
    const ticket: Ticket = {
      task: name,
      client: options.client ?? ANONYMOUS,
      priority: options.priority ?? 'interactive',
      enqueuedAt: 0,
      start: () => {
        options.started?.();
        settle('started');
      },
      evict: () => settle('evicted'),
    };
    const refused = this.#scheduler.submit(ticket);
    if (refused !== undefined) {
      this.#breaker.release();
      return { ok: false, reason: 'saturated', cause: refused, retryAfterSeconds: this.#retryAfterSeconds(ticket) };
    }
    options.admitted?.();
    // One abort per task, fed by a timer and the caller's signal. Not
    // AbortSignal.any/AbortSignal.timeout: on Node 20 composites with timeout
    // sources and listeners are retained forever (nodejs/node#54614, #55351);
    // nor an AbortController, which allocates far more (task-abort.ts).
    const controller = new TaskAbort();
    // The timeout is a processing timeout: it runs from when a worker thread
    // takes the task (thread-readiness.ts), not counting the wait for a
    // thread (in our queue, or in Piscina's while a replaced thread starts).
    // The wait has a bound of its own, the same length from submission, so a
    // request as a whole ends within twice the timeout.
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    let timedOut: 'waiting' | 'running' | undefined;
    let phase: 'waiting' | 'running' = 'waiting';
    const expire = () => {
      timedOut = phase;
      if (this.#scheduler.withdraw(ticket)) settle('withdrawn');
      controller.abort();
    };
    let timer = setTimeout(expire, timeoutMs);
    // A caller that goes away aborts its task, but not at once: aborting a
    // *running* task terminates its thread, and a cold replacement costs far
    // more than letting a short task end (measured: a disconnect during a 2 ms
    // render cost a thread start and module reload). Long tasks are still
    // stopped ABORT_GRACE_MS after the caller left. A task still waiting for
    // a thread is simply taken out of the queue.
    let graceTimer: NodeJS.Timeout | undefined;
    const onCallerAbort = () => {
      if (this.#scheduler.withdraw(ticket)) settle('withdrawn');
      else graceTimer = setTimeout(() => controller.abort(), options.abortGraceMs ?? ABORT_GRACE_MS);
    };
    signal.addEventListener('abort', onCallerAbort, ONCE);
    let serviceMs: number | undefined;
    let ranFrom: number | undefined;
    let placement: Placement | undefined;
    try {
      how ??= await new Promise<Waited>((resolve) => (settle = resolve));
      if (how !== 'started') {
        this.#breaker.release();
        if (how === 'evicted') return { ok: false, reason: 'saturated', cause: 'pushed-out', retryAfterSeconds: this.#retryAfterSeconds(ticket) };
        return timedOut !== undefined ? { ok: false, reason: 'timeout', waiting: true } : { ok: false, reason: 'aborted' };
      }
      ranFrom = performance.now();
      placement = this.#threads.handed(() => {
        phase = 'running';
        clearTimeout(timer);
        timer = setTimeout(expire, timeoutMs);
      });
      // The worker's answer has the type TaskMap gives this name: test/unit/task-map.test.ts
      // checks that workers/index.ts exports each task with exactly that type.
      const outcome = (await this.#piscina.run(input, {
        name,
        signal: controller,
        transferList: input.body.byteLength > 0 ? [input.body] : [],
      })) as Outcome<ValueOf<Name>>;
      this.#breaker.success();
      serviceMs = outcome.timings.taskMs;
      this.#meanTaskMs = this.#meanTaskMs === 0 ? outcome.timings.taskMs : this.#meanTaskMs * 0.9 + outcome.timings.taskMs * 0.1;
      if (signal.aborted) return { ok: false, reason: 'aborted' };
      return { ok: true, outcome, roundTripMs: performance.now() - started, waitMs: ranFrom - started };
    } catch (error) {
      return this.#failure(error, timedOut);
    } finally {
      if (placement !== undefined) this.#threads.ended(placement);
      if (ranFrom !== undefined) this.#scheduler.finished(ticket, serviceMs ?? performance.now() - ranFrom);
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

  /**
   * Reads the configured key files once on a worker (workers/deployment-check.ts);
   * resolves with what is wrong with them, one problem each, or none.
   */
  async checkDeployment(options: DeploymentCheckOptions): Promise<string[]> {
    const outcome: Outcome = await this.#piscina.run({ body: new ArrayBuffer(0), length: 0, options }, { name: 'check-deployment' });
    return outcome.ok ? [] : outcome.detail.split('\n');
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
  #failure(error: unknown, timedOut: 'waiting' | 'running' | undefined): PoolResult<never> {
    if (timedOut !== undefined) {
      this.#breaker.release();
      return { ok: false, reason: 'timeout', waiting: timedOut === 'waiting' };
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

  /**
   * When a retry is likely to be admitted: the scheduler's expected wait for
   * this client's task (the work fair ordering puts ahead of it, from each
   * task's recent service time, over the threads), in whole seconds as
   * Retry-After takes them (RFC 9110 section 10.2.3), at least 1.
   */
  #retryAfterSeconds(ticket: Ticket): number {
    return retryAfterSeconds(this.#scheduler.expectedWaitMs(ticket.client, ticket.task));
  }
}

/** Whole seconds, at least one, for an expected wait in milliseconds. */
export function retryAfterSeconds(expectedWaitMs: number): number {
  return Math.max(1, Math.ceil(expectedWaitMs / 1000));
}
