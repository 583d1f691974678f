// The embedded job runner: runs accepted jobs on the worker pool from an
// in-process queue rebuilt from the job files at start-up.
//
// Order: fair between clients (issue 9: one client's backlog of 77 jobs
// delayed another's single job by a minute). Jobs wait per client in a fair
// queue (src/pool/fair-queue.ts): the next job comes from the client with
// the fewest jobs under way per unit of weight, round robin among equals;
// each client's own jobs run oldest first.
//
// Starvation policy: up to `concurrency` jobs are handed to the pool at once
// as background tasks; the pool starts one only on a thread no synchronous
// task is waiting for, so jobs use every idle worker while synchronous
// renders keep priority (issue 14). More jobs than threads are under way,
// and a job's slot is given back as soon as its render ends, so that
// storing one job's outcome overlaps the next job's render. A job the pool
// refuses (its circuit breaker is open) waits at the head of its client's
// line and is retried shortly.
//
// Delivery is at least once: a job that was running when the process
// stopped is run again after a restart (its record still says running).
import type { Logger } from 'pino';
import { FairQueue } from '../pool/fair-queue.js';
import type { FileJobStore } from '../store/file-job-store.js';
import { TERMINAL, type JobExecutor, type JobRecord } from '../store/jobs.js';
import { executeJob, executeSubmitted, withdrawSubmission, type ExecuteOptions, type Submission, type SubmissionStarter, type SubmissionVerdict, type SubmittedRun } from './execute.js';
import { JobWaiters } from './waiters.js';

export interface JobRunnerOptions extends ExecuteOptions {
  readonly store: FileJobStore;
  readonly concurrency: number;
  /** Finished jobs (and their results) are removed this long after they finished. */
  readonly retentionMs: number;
  readonly logger: Logger;
  /** Told of every job the retention sweep removes (its idempotency key goes with it). */
  readonly onRemoved?: (job: JobRecord) => void;
  /** The owner's share when clients' jobs contend (its key's weight, else its tier's; 1 for a client whose keys are gone). */
  readonly weightOf: (owner: string) => number;
}

/** How soon a job the pool refused is tried again. */
const RETRY_MS = 250;

interface Running {
  readonly controller: AbortController;
  readonly progress: Int32Array;
  /** Gives the job's slot back (once): its render ended. */
  readonly rendered: () => void;
  /** Settles when the job's task has ended and its outcome is recorded. */
  done?: Promise<void>;
}

/** Listener options shared by every submission (a literal per call was an allocation per request). */
const ONCE = Object.freeze({ once: true });

export class JobRunner implements JobExecutor, SubmissionStarter {
  readonly #queue = new FairQueue<string>();
  /** The owner of every queued job, to find it in its owner's line. */
  readonly #owners = new Map<string, string>();
  readonly #running = new Map<string, Running>();
  /** Jobs holding one of the `concurrency` slots: from their start until their render ends. */
  #rendering = 0;
  readonly #waiters = new JobWaiters();
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
      this.#add(job.id, job.owner);
    }
    await this.sweep();
    this.#pump();
  }

  async enqueue(job: JobRecord): Promise<void> {
    this.#add(job.id, job.owner);
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
    const owner = this.#owners.get(id);
    if (owner !== undefined && this.#queue.remove(owner, id)) this.#owners.delete(id);
    const record = await this.options.store.update(id, { status: 'cancelled', completedAt: new Date().toISOString() }, ['pending', 'running']);
    this.#running.get(id)?.controller.abort();
    this.#waiters.notify(id);
    return record;
  }

  settled(id: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.#waiters.wait(id, timeoutMs, signal);
  }

  releaseWaits(): void {
    this.#waiters.releaseAll();
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
    this.#waiters.releaseAll();
    clearInterval(this.#sweeper);
    clearTimeout(this.#retry);
    const running = [...this.#running.values()];
    for (const job of running) job.controller.abort();
    await Promise.allSettled(running.map((job) => job.done));
  }

  /**
   * Starts a job from its submission when it would be started at once
   * anyway: a slot free, no job waiting (so the fair order is kept), and a
   * thread the pool would give a background task now. Its render task then
   * validates the request first and says so in shared memory, and the
   * submission is answered from that, while the render goes on: one task a
   * job instead of a validation task and then a render task, each with its
   * hand-off, thread wake-up and parse (issue 14: the validation task was
   * 0.44 ms of the 2.9 ms of server CPU a letter job cost, against 1.7 ms
   * for a synchronous render). Otherwise (a backlog, synchronous work
   * waiting) undefined: the caller validates apart and queues the job.
   */
  async startSubmitted(job: JobRecord, submission: Submission): Promise<SubmittedRun | undefined> {
    if (!this.#startsNow()) return undefined;
    // The owner's registered fonts: read before deciding, since the state may change while they are.
    const fonts = await this.options.fonts?.files(job.owner);
    if (!this.#startsNow()) return undefined;
    const { id, owner } = job;
    const client = { id: owner, weight: this.options.weightOf(owner) };
    this.#queue.started(client);
    // Two Int32s: progress, and the task's word that the request is valid.
    const running = this.#take(id, owner, new Int32Array(new SharedArrayBuffer(8)));
    let stored: Promise<void> | undefined;
    let answered = false;
    // The client left before it could learn the job's id: a task still validating renders nothing.
    const onGone = () => {
      if (!answered) withdrawSubmission(running.progress);
    };
    submission.gone.addEventListener('abort', onGone, ONCE);
    let resolve!: (verdict: SubmissionVerdict) => void;
    const verdict = new Promise<SubmissionVerdict>((settle) => (resolve = settle));
    const tell = (answer: SubmissionVerdict) => {
      answered = true;
      submission.gone.removeEventListener('abort', onGone);
      resolve(answer);
    };
    const create = () => (stored = submission.create());
    running.done = this.#settle(
      id,
      running,
      executeSubmitted(this.options, job, { ...submission, create, fonts }, { signal: running.controller.signal, progress: running.progress, rendered: running.rendered }, client, tell),
    );
    return { verdict, stored: () => stored };
  }

  #startsNow(): boolean {
    return !this.#closed && this.#retry === undefined && this.#rendering < this.options.concurrency && this.#queue.size === 0 && this.options.pool.backgroundStartsNow;
  }

  #pump(): void {
    while (!this.#closed && this.#retry === undefined && this.#rendering < this.options.concurrency) {
      const next = this.#queue.next();
      if (next === undefined) return;
      const { client: owner, item: id } = next;
      this.#owners.delete(id);
      const running = this.#take(id, owner, new Int32Array(new SharedArrayBuffer(4)));
      running.done = this.#settle(id, running, this.#run(id, owner, running));
    }
  }

  /** Takes one of the `concurrency` slots for a job of `owner` that starts now (counted as under way in the fair queue by the caller). */
  #take(id: string, owner: string, progress: Int32Array): Running {
    this.#rendering += 1;
    let released = false;
    // The slot is given back when the render ends, not once its outcome is
    // stored: the store's group commit then overlaps the next job's render
    // instead of leaving a thread idle while it waits for an fdatasync.
    const release = () => {
      if (released) return;
      released = true;
      this.#rendering -= 1;
      this.#queue.finished(owner);
      this.#pump();
    };
    const running: Running = { controller: new AbortController(), progress, rendered: release };
    this.#running.set(id, running);
    return running;
  }

  /** When the job's run has ended: its slot back (if its render did not already give it), its waiting polls told. */
  #settle(id: string, running: Running, run: Promise<unknown>): Promise<void> {
    return run
      .then(() => undefined)
      .catch((error: unknown) => this.options.logger.error({ job: id, err: error }, 'job runner failed'))
      .finally(() => {
        if (this.#running.get(id) === running) this.#running.delete(id);
        this.#waiters.notify(id);
        running.rendered();
      });
  }

  #add(id: string, owner: string, front = false): void {
    this.#owners.set(id, owner);
    this.#queue.push({ id: owner, weight: this.options.weightOf(owner) }, id, front);
  }

  async #run(id: string, owner: string, running: Running): Promise<void> {
    const outcome = await executeJob(
      this.options,
      id,
      { signal: running.controller.signal, progress: running.progress, rendered: running.rendered },
      { id: owner, weight: this.options.weightOf(owner) },
    );
    if (outcome === 'refused' && !this.#closed) {
      this.#add(id, owner, true);
      this.#retry ??= setTimeout(() => {
        this.#retry = undefined;
        this.#pump();
      }, RETRY_MS);
    }
  }
}
