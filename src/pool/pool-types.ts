// What the worker pool (pool.ts) is built with, takes and answers: its
// options, a task's run options and caller signal, the ways a task ends
// without an Outcome, and the counts /health and /metrics read.
import type { Outcome, TaskName, ValueOf } from '../../workers/protocol.js';
import type { Tier } from '../auth/tiers.js';
import type { FairClient } from './fair-queue.js';
import type { BreakerState } from './circuit-breaker.js';
import type { Priority } from './scheduler.js';

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
  /** Acceptable queue wait once the queue is standing (PLATEN_QUEUE_TARGET_MS); undefined: derived per task (queue-target.ts). */
  readonly queueTargetMs: number | undefined;
  /** How long waits stay above the target before admission goes by expected wait (PLATEN_QUEUE_INTERVAL_MS). */
  readonly queueIntervalMs: number;
  /** Each tier's share when clients contend (PLATEN_*_WEIGHT); a key's `weight` attribute overrides it. */
  readonly tierWeights: Readonly<Record<Tier, number>>;
  readonly workerData?: unknown;
}

/** Why a saturated pool refused: `full` queue, a `standing` queue the task would wait too long in, or `pushed-out` for a fairer claim. */
export type SaturationCause = 'full' | 'standing' | 'pushed-out';

/** Why a task produced no Outcome. */
export type PoolFailure =
  /** Every thread busy and the queue full (or standing, or this task's place given to a client below its share): 503. */
  | { readonly reason: 'saturated'; readonly cause: SaturationCause; readonly retryAfterSeconds: number }
  /** The circuit breaker is open: 503. */
  | { readonly reason: 'breaker-open'; readonly retryAfterSeconds: number }
  /**
   * The processing timeout passed (the worker was terminated and replaced),
   * or, `waiting`, the task waited as long for a thread and never ran: 504.
   */
  | { readonly reason: 'timeout'; readonly waiting: boolean }
  /** The caller's signal fired (client went away); the worker was freed. */
  | { readonly reason: 'aborted' }
  /** The worker ran out of its heap (resourceLimits) and was replaced. */
  | { readonly reason: 'out-of-memory' }
  /** The task threw or the worker exited: a bug, 500. */
  | { readonly reason: 'crashed'; readonly error: unknown };

export type PoolResult<Name extends TaskName = TaskName> =
  | {
      readonly ok: true;
      readonly outcome: Outcome<ValueOf<Name>>;
      /** From run() to the outcome back on the main thread. */
      readonly roundTripMs: number;
      /** The part of it spent waiting in the scheduler's queue for a thread (the rest is the task and its hand-over). */
      readonly waitMs: number;
    }
  | ({ readonly ok: false } & PoolFailure);

/**
 * How a task's caller says it left: an AbortSignal, or anything with these
 * three members (the HTTP layer's ClientSignal, which costs far less).
 */
export interface CallerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface RunOptions {
  /** Overrides the pool's processing timeout (jobs have their own). */
  readonly timeoutMs?: number;
  /** How long a running task may go on after `signal` fires (a cancelled job: 0). */
  readonly abortGraceMs?: number;
  /** Whose task this is, for fair sharing between clients. Default: one anonymous client. */
  readonly client?: FairClient;
  /** `background` (jobs) runs only on a thread no synchronous task is waiting for, and is never refused for a full queue. */
  readonly priority?: Priority;
  /**
   * Called synchronously, inside run(), once the task has a thread or a
   * place in the queue (never for a task refused at once): the caller may
   * start work that only an admitted task needs, such as a job's durable
   * write, so that it overlaps the wait and the task.
   */
  readonly admitted?: () => void;
  /**
   * Called synchronously once the task has its thread, before its input is
   * handed over: until then the caller may still change the input object's
   * members (a batch of job validations takes in the submissions that
   * arrived while it waited).
   */
  readonly started?: () => void;
}

export interface PoolStats {
  readonly total: number;
  readonly busy: number;
  readonly idle: number;
  readonly queued: number;
  /** True while the queue is standing and admission goes by expected wait. */
  readonly standing: boolean;
  /** Tasks that may wait for a thread before the pool refuses (PLATEN_MAX_QUEUE). */
  readonly maxQueue: number;
  /** Threads being started or replaced (after a timeout or a crash), not yet taking tasks. */
  readonly starting: number;
  readonly breaker: BreakerState;
}
