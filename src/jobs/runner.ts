// The embedded job runner: runs accepted jobs on the worker pool, oldest
// first, from an in-process queue rebuilt from the job files at start-up.
//
// Starvation policy: at most `concurrency` jobs run at once (default: one
// less than the worker count, at least one), so with two or more workers a
// backlog of jobs never holds every thread and synchronous renders always
// find one. A job the pool refuses because synchronous traffic filled it is
// put back at the head of the queue and retried shortly.
//
// Delivery is at least once: a job that was running when the process
// stopped is run again after a restart (its record still says running).
import type { Logger } from 'pino';
import type { FileJobStore } from '../store/file-job-store.js';
import { TERMINAL, type JobExecutor, type JobRecord } from '../store/jobs.js';
import { executeJob, type ExecuteOptions } from './execute.js';

export interface JobRunnerOptions extends ExecuteOptions {
  readonly store: FileJobStore;
  readonly concurrency: number;
  /** Finished jobs (and their results) are removed this long after they finished. */
  readonly retentionMs: number;
  readonly logger: Logger;
  /** Told of every job the retention sweep removes (its idempotency key goes with it). */
  readonly onRemoved?: (job: JobRecord) => void;
}

/** How soon a job the pool refused is tried again. */
const RETRY_MS = 250;

interface Running {
  readonly controller: AbortController;
  readonly progress: Int32Array;
  /** Settles when the job's task has ended and its outcome is recorded. */
  done?: Promise<void>;
}

export class JobRunner implements JobExecutor {
  readonly #queue: string[] = [];
  readonly #running = new Map<string, Running>();
  #closed = false;
  /** Set while waiting to retry a job the pool refused: no job starts until it fires. */
  #retry: NodeJS.Timeout | undefined;
  readonly #sweeper: NodeJS.Timeout;

  constructor(private readonly options: JobRunnerOptions) {
    const every = Math.max(1_000, Math.min(60_000, options.retentionMs / 4));
    this.#sweeper = setInterval(() => void this.sweep(), every);
    this.#sweeper.unref();
  }

  /** After a restart: jobs that were running run again; pending ones keep their order. */
  async recover(): Promise<void> {
    const unfinished = [...this.options.store.all()].filter((job) => !TERMINAL.has(job.status)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const job of unfinished) {
      if (job.status === 'running') await this.options.store.update(job.id, { status: 'pending', startedAt: null });
      this.#queue.push(job.id);
    }
    await this.sweep();
    this.#pump();
  }

  async enqueue(id: string): Promise<void> {
    this.#queue.push(id);
    this.#pump();
  }

  get activeJobs(): number {
    return this.#running.size;
  }

  async progress(job: JobRecord): Promise<number | null> {
    if (job.status === 'completed') return 100;
    if (job.status === 'pending') return 0;
    if (job.status !== 'running') return null;
    const running = this.#running.get(job.id);
    return running === undefined ? 0 : Atomics.load(running.progress, 0);
  }

  async cancel(id: string): Promise<JobRecord | undefined> {
    const index = this.#queue.indexOf(id);
    if (index >= 0) this.#queue.splice(index, 1);
    const record = await this.options.store.update(id, { status: 'cancelled', completedAt: new Date().toISOString() }, ['pending', 'running']);
    this.#running.get(id)?.controller.abort();
    return record;
  }

  /** Removes finished jobs past their retention. */
  async sweep(): Promise<void> {
    const cutoff = Date.now() - this.options.retentionMs;
    for (const job of [...this.options.store.all()]) {
      if (TERMINAL.has(job.status) && job.completedAt !== null && Date.parse(job.completedAt) <= cutoff) {
        await this.options.store.remove(job.id);
        this.options.onRemoved?.(job);
      }
    }
  }

  /**
   * Stops taking jobs and aborts the running ones (they stay `running` in the
   * store and run again after a restart). Resolves once their tasks have
   * ended: Piscina's close counts workers as it starts, and one still being
   * replaced after an abort kept it waiting for its 30 s close timeout.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    clearTimeout(this.#retry);
    const running = [...this.#running.values()];
    for (const job of running) job.controller.abort();
    await Promise.allSettled(running.map((job) => job.done));
  }

  #pump(): void {
    while (!this.#closed && this.#retry === undefined && this.#running.size < this.options.concurrency && this.#queue.length > 0) {
      const id = this.#queue.shift() as string;
      const running: Running = { controller: new AbortController(), progress: new Int32Array(new SharedArrayBuffer(4)) };
      this.#running.set(id, running);
      running.done = this.#run(id, running)
        .catch((error: unknown) => this.options.logger.error({ job: id, err: error }, 'job runner failed'))
        .finally(() => {
          this.#running.delete(id);
          this.#pump();
        });
    }
  }

  async #run(id: string, running: Running): Promise<void> {
    const outcome = await executeJob(this.options, id, { signal: running.controller.signal, progress: running.progress });
    if (outcome === 'refused' && !this.#closed) {
      this.#queue.unshift(id);
      this.#retry ??= setTimeout(() => {
        this.#retry = undefined;
        this.#pump();
      }, RETRY_MS);
    }
  }
}
