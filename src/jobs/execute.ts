// One run of one job, whichever runner started it: mark it running, render
// its stored request on the pool (with progress in shared memory), store the
// result and finish the record. Every state change is a compare-and-set
// from `running`, so a job cancelled meanwhile (on any node) stays cancelled.
import type { RenderOptions } from '../../workers/protocol.js';
import type { FairClient } from '../pool/fair-queue.js';
import type { WorkerPool } from '../pool/pool.js';
import type { FontStore } from '../store/fonts.js';
import type { JobStore } from '../store/jobs.js';

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
