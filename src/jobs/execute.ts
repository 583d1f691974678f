// One run of one job, whichever runner started it: mark it running, render
// its stored request on the pool (with progress in shared memory), store the
// result and finish the record. Every state change is a compare-and-set
// from `running`, so a job cancelled meanwhile (on any node) stays cancelled.
import type { RenderOptions, SubmissionState } from '../../workers/protocol.js';
import type { FairClient } from '../pool/fair-queue.js';
import type { CallerSignal, PoolResult, WorkerPool } from '../pool/pool.js';
import type { FontStore } from '../store/fonts.js';
import type { JobRecord, JobStore } from '../store/jobs.js';

export interface ExecuteOptions {
  readonly store: JobStore;
  readonly pool: WorkerPool;
  readonly timeoutMs: number;
  readonly maxPages: number;
  /** The job owner's registered fonts, which its set_font operations may name. */
  readonly fonts?: FontStore;
}

export interface Execution {
  readonly signal: AbortSignal;
  /** Int32 slot 0: the task's progress, 0-100. */
  readonly progress: Int32Array;
  /** Called once the pool task has ended, before the outcome is stored: the runner may start another job meanwhile. */
  readonly rendered?: () => void;
}

/** A job being submitted, for a runner that may start it at once (SubmissionStarter). */
export interface Submission {
  /** The request body, handed over to the task (transferred). */
  readonly body: ArrayBuffer;
  readonly length: number;
  /** Writes the job's creation durably; called once, when the pool has admitted the task (never when it refused it at once). */
  readonly create: () => Promise<void>;
  /** The submitting client: when it leaves before the request is known valid, the submission is withdrawn (withdrawSubmission). */
  readonly gone: CallerSignal;
}

/** `valid`: the request passed the validate task's checks. Otherwise the pool's result says why not (the submission's 4xx or 5xx). */
export type SubmissionVerdict = { readonly valid: true } | { readonly valid: false; readonly result: PoolResult<'render'> };

export interface SubmittedRun {
  /** Settles as soon as the task has validated the request (the render goes on), or when it ended without doing so. */
  readonly verdict: Promise<SubmissionVerdict>;
  /** The creation's write (Submission.create), once started. */
  readonly stored: () => Promise<void> | undefined;
}

/**
 * A runner that may run a job from its submission on: when the job would
 * be started at once anyway, its render task validates it first and says
 * so in shared memory, so a job is one task instead of two (issue 14).
 */
export interface SubmissionStarter {
  /** Undefined when the job would not start at once: the caller validates it apart and queues it. */
  startSubmitted(job: JobRecord, submission: Submission): Promise<SubmittedRun | undefined>;
}

/** Where a submitted job's SubmissionState is in its shared Int32s, and its three states (RenderOptions.signalValid). */
const SUBMISSION_SLOT = 1;
const UNDECIDED: SubmissionState = 0;
const VALID: SubmissionState = 1;
const WITHDRAWN: SubmissionState = 2;

/**
 * Withdraws a submitted job whose client left before it was told that the
 * job exists: true when the task had not yet found the request valid. The
 * task then stops once it has validated, without rendering, and the
 * submission is answered as its client's leaving, with nothing kept
 * (executeSubmitted). Not an abort: stopping a running task terminates its
 * thread, and a replacement costs far more than the validation left to run.
 */
export function withdrawSubmission(progress: Int32Array): boolean {
  return Atomics.compareExchange(progress, SUBMISSION_SLOT, UNDECIDED, WITHDRAWN) === UNDECIDED;
}

/**
 * Runs a job started by its submission (SubmissionStarter): its record is
 * being written meanwhile (`stored`); `verdict` is told as soon as the task
 * signals that the request is valid, or when the task ends without that.
 * Only a valid job's run is this function's to finish: a job found invalid
 * (or whose task ended before it could tell) is the submission's to answer
 * and remove, and nothing about it is stored here.
 */
export async function executeSubmitted(
  options: ExecuteOptions,
  job: JobRecord,
  submission: Submission & { readonly fonts: Readonly<Record<string, string>> | undefined },
  execution: Execution,
  owner: FairClient,
  verdict: (verdict: SubmissionVerdict) => void,
): Promise<void> {
  const { store, pool } = options;
  const slots = execution.progress;
  let told = false;
  const tell = (answer: SubmissionVerdict) => {
    if (told) return;
    told = true;
    verdict(answer);
  };
  // Resolves when the worker notifies (or the main thread does, below, once the task has ended).
  const waiting = Atomics.waitAsync(slots, SUBMISSION_SLOT, UNDECIDED);
  if (waiting.async) void waiting.value.then(() => Atomics.load(slots, SUBMISSION_SLOT) === VALID && tell({ valid: true }));
  let stored: Promise<void> | undefined;
  let running: Promise<JobRecord | undefined> | undefined;
  const renderOptions: RenderOptions = {
    maxPages: options.maxPages,
    progress: slots.buffer as SharedArrayBuffer,
    signalValid: true,
    ...(submission.fonts === undefined ? {} : { fonts: submission.fonts }),
  };
  const result = await pool.run('render', { body: submission.body, length: submission.length, options: { ...renderOptions } }, execution.signal, {
    timeoutMs: options.timeoutMs,
    abortGraceMs: 0,
    client: owner,
    priority: 'background',
    admitted: () => {
      stored = submission.create();
      // The job is `running` from when its creation is durable (in memory only, as for any job).
      running = stored.then(() => store.update(job.id, { status: 'running', startedAt: new Date().toISOString() }, ['pending']));
      running.catch(() => undefined);
    },
  });
  execution.rendered?.();
  // Wakes the wait above when the task ended without notifying.
  Atomics.notify(slots, SUBMISSION_SLOT);
  const state = Atomics.load(slots, SUBMISSION_SLOT);
  if (state === WITHDRAWN) return tell({ valid: false, result: { ok: false, reason: 'aborted' } });
  if (state !== VALID) return tell({ valid: false, result });
  tell({ valid: true });
  // The creation failed (the submission answers that), or a cancel or removal came first.
  const started = await running?.catch(() => undefined);
  if (started === undefined || execution.signal.aborted) return;
  const completedAt = new Date().toISOString();
  if (result.ok && result.outcome.ok) {
    await store.complete(job.id, new Uint8Array(result.outcome.value.body), completedAt);
    return;
  }
  await store.update(job.id, { status: 'failed', completedAt, error: failure(result, options.timeoutMs) }, ['running']);
}

/**
 * `finished`: the job reached a final state, or is no longer this run's to
 * finish (cancelled, removed, shutting down). `refused`: the pool was full or
 * its breaker open; the job is pending again for the caller to retry.
 */
export type ExecutionResult = 'finished' | 'refused';

/** `owner` is the job's client, for the pool's accounting; jobs run as background tasks, after waiting synchronous work. */
export async function executeJob(options: ExecuteOptions, id: string, execution: Execution, owner: FairClient): Promise<ExecutionResult> {
  const { store, pool } = options;
  // A job found `running` was being run by a process that died (at-least-once delivery).
  const started = await store.update(id, { status: 'running', startedAt: new Date().toISOString() }, ['pending', 'running']);
  if (started === undefined) return 'finished';
  const bytes = await store.body(id);
  if (bytes === undefined) {
    await store.update(id, { status: 'failed', completedAt: new Date().toISOString(), error: 'the stored request is missing' }, ['running']);
    return 'finished';
  }
  const body = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(body).set(bytes);
  const fonts = await options.fonts?.files(started.owner);
  const renderOptions: RenderOptions = { maxPages: options.maxPages, progress: execution.progress.buffer as SharedArrayBuffer, ...(fonts === undefined ? {} : { fonts }) };
  const result = await pool.run('render', { body, length: bytes.byteLength, options: { ...renderOptions } }, execution.signal, {
    timeoutMs: options.timeoutMs,
    abortGraceMs: 0,
    client: owner,
    priority: 'background',
  });
  const refused = !result.ok && (result.reason === 'saturated' || result.reason === 'breaker-open');
  // A refused job keeps its slot until the runner has put it back in line and set its retry.
  if (!refused) execution.rendered?.();
  if (execution.signal.aborted) return 'finished'; // cancelled, or shutting down (then it runs again later)
  if (refused) {
    await store.update(id, { status: 'pending', startedAt: null }, ['running']);
    return 'refused';
  }
  const completedAt = new Date().toISOString();
  if (result.ok && result.outcome.ok) {
    await store.complete(id, new Uint8Array(result.outcome.value.body), completedAt);
    return 'finished';
  }
  await store.update(id, { status: 'failed', completedAt, error: failure(result, options.timeoutMs) }, ['running']);
  return 'finished';
}

function failure(result: Awaited<ReturnType<WorkerPool['run']>>, timeoutMs: number): string {
  if (result.ok) return result.outcome.ok ? '' : result.outcome.detail;
  switch (result.reason) {
    case 'timeout':
      return result.waiting
        ? `no worker thread was free for the job limit of ${timeoutMs} ms (PLATEN_JOB_TIMEOUT_MS); the job did not run`
        : `processing took longer than the job limit of ${timeoutMs} ms (PLATEN_JOB_TIMEOUT_MS)`;
    case 'out-of-memory':
      return 'processing needs more memory than a worker may use (PLATEN_WORKER_MEMORY_MB)';
    case 'crashed':
      return 'an internal error stopped the render; the server log has the details';
    default:
      return `the job could not run (${result.reason})`;
  }
}
