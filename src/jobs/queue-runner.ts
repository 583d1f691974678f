// The multi-node job runner: a BullMQ queue in the shared Redis, consumed by
// every node. BullMQ gives the distribution and the at-least-once delivery:
// a node that dies mid-job loses its lock, and another node's stalled-job
// check puts the job back in the queue, where any node runs it again.
//
// Starvation policy as in the embedded runner: each node takes up to
// `concurrency` jobs and hands them to its pool as background tasks, which
// start only on a thread no synchronous task is waiting for; a job the pool
// refuses (its breaker is open) waits and tries again while holding its
// queue slot.
//
// Fairness between clients (issue 9) with BullMQ's priorities: a job's
// priority is its rank among its owner's jobs still waiting (1 for the
// first, 2 for the second, ... divided by the owner's weight), counted in
// Redis per owner. BullMQ runs lower numbers first and equal numbers in
// arrival order, so the queue serves one job of every client, then a second
// of every client, and so on: round robin across clients, on every node,
// with no shared scheduler. A client that arrives late is served next; a
// client's own jobs keep their order.
//
// Cancelling reaches the node that runs the job through Redis pub/sub; the
// running task is aborted there. Progress is written to Redis while a job
// runs, so a poll on any node sees it.
//
// Redis unavailable while a job is picked up, runs or finishes: the job's
// own store reads and writes are tried again until Redis is back
// (PatientJobStore), for at most the lock's duration, so a blip costs a
// pause and no re-render. Past that (or for a read the patient store does
// not cover), the job is put back in the queue for any node to run again
// (BullMQ's manual delay: Job.moveToDelayed, then DelayedError, which
// BullMQ neither completes nor fails). The job's queue entry is never
// acknowledged before its record is final: BullMQ fails a job whose
// processor throws and, with one attempt and removeOnFail, deletes it.
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { TERMINAL, type JobExecutor, type JobRecord } from '../store/jobs.js';
import { RedisConnection } from '../store/redis/connection.js';
import { DependencyUnavailable } from '../unavailable.js';
import { executeJob, type ExecuteOptions } from './execute.js';
import { PatientJobStore } from './patient-store.js';
import { JobWaiters } from './waiters.js';

export interface QueueRunnerOptions extends ExecuteOptions {
  readonly redis: RedisConnection;
  readonly url: string;
  readonly concurrency: number;
  /** How long a node's claim on a running job lasts without renewal: how soon a dead node's jobs run elsewhere. */
  readonly lockMs: number;
  readonly logger: Logger;
  /** The owner's share when clients' jobs contend (its key's weight, else its tier's). */
  readonly weightOf: (owner: string) => number;
}

/** How soon a job the pool refused is tried again. */
const RETRY_MS = 250;
/** BullMQ's lowest priority (its documented range is 0-2,097,151; 0 means none, served before all others). */
const LOWEST_PRIORITY = 2_097_151;
/**
 * Takes one job off an owner's waiting count (at its first delivery; a
 * redelivered job was already counted off), never below zero.
 */
const COUNT_OFF = `local n = redis.call('DECR', KEYS[1]) if n <= 0 then redis.call('DEL', KEYS[1]) end return n`;

/** A failed job's error when the runner threw (a bug). */
const INTERNAL_FAILURE = 'an internal error stopped the job; the server log has the details';

/** How often a running job's progress is written to Redis. */
const PROGRESS_EVERY_MS = 250;

interface Running {
  readonly controller: AbortController;
  readonly progress: Int32Array;
}

export class QueueRunner implements JobExecutor {
  readonly #queue: Queue;
  readonly #worker: Worker;
  readonly #cancels: Redis;
  /** Connections given to BullMQ: it does not close connections it was handed, so close() does. */
  readonly #connections: Redis[];
  readonly #running = new Map<string, Running>();
  readonly #waiters = new JobWaiters();
  /** The store as the runs use it: patient while Redis is unavailable. */
  readonly #store: PatientJobStore;
  /** Fires on close(): ends the patient store's waits. */
  readonly #closing = new AbortController();
  #closed = false;

  constructor(private readonly options: QueueRunnerOptions) {
    const { redis, url, lockMs } = options;
    const prefix = redis.key('bull');
    // Past the lock's duration without Redis, the lock may be gone and the job already running elsewhere: stop waiting then.
    this.#store = new PatientJobStore(options.store, { limitMs: lockMs, signal: this.#closing.signal });
    // Submissions fail fast (503) while Redis is down rather than queue in memory.
    const queueConnection = new Redis(url, { ...RedisConnection.options(), enableOfflineQueue: false });
    // BullMQ's workers block on Redis: no per-request retry limit (its documented requirement).
    const workerConnection = new Redis(url, { ...RedisConnection.options(), maxRetriesPerRequest: null });
    this.#cancels = new Redis(url, RedisConnection.options());
    this.#connections = [queueConnection, workerConnection, this.#cancels];
    // Outages are reported once, by RedisConnection.
    for (const connection of this.#connections) connection.on('error', () => undefined);
    this.#queue = new Queue('jobs', { connection: queueConnection, prefix });
    this.#queue.on('error', () => undefined);
    this.#worker = new Worker('jobs', (job, token) => this.#process(job, token), {
      connection: workerConnection,
      prefix,
      concurrency: options.concurrency,
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      // A job whose node keeps dying is not retried for ever.
      maxStalledCount: 3,
    });
    this.#worker.on('error', () => undefined);
    this.#worker.on('failed', (job, error) => {
      this.options.logger.error({ job: job?.id, err: error }, 'queued job failed in the runner');
      // Failed jobs leave the queue (removeOnFail): the record must not stay unfinished with nothing left to run it.
      // Besides a bug (#process marks those), BullMQ fails a job that stalled more than maxStalledCount times
      // without calling the processor ("job stalled more than allowable limit").
      const id = (job?.data as { id?: string } | undefined)?.id;
      if (id === undefined) return;
      const detail =
        error.name === 'UnrecoverableError'
          ? `the job was interrupted ${job?.attemptsStarted ?? 0} times without finishing (its node stopped, or lost Redis for longer than PLATEN_JOB_LOCK_MS)`
          : INTERNAL_FAILURE;
      void this.#store.update(id, { status: 'failed', completedAt: new Date().toISOString(), error: detail }, ['pending', 'running']).catch(() => undefined);
    });
    // One subscriber connection for both: cancels (abort the job here if it runs here) and settled jobs (wake long polls here).
    void this.#cancels.subscribe(this.#cancelChannel(), this.#settledChannel()).catch(() => undefined);
    this.#cancels.on('message', (channel: string, id: string) => {
      if (channel === this.#cancelChannel()) this.#running.get(id)?.controller.abort();
      this.#waiters.notify(id);
    });
  }

  async enqueue(job: JobRecord): Promise<void> {
    const waitingKey = this.#waitingKey(job.owner);
    const rank = await this.options.redis.run((client) => client.incr(waitingKey));
    const priority = Math.min(LOWEST_PRIORITY, Math.max(1, Math.ceil(rank / this.options.weightOf(job.owner))));
    try {
      await this.options.redis.run(() =>
        this.#queue.add('render', { id: job.id, owner: job.owner }, { jobId: job.id, priority, removeOnComplete: true, removeOnFail: true }),
      );
    } catch (error) {
      await this.options.redis.run((client) => client.eval(COUNT_OFF, 1, waitingKey)).catch(() => undefined);
      throw error;
    }
  }

  get activeJobs(): number {
    return this.#running.size;
  }

  async progress(job: JobRecord): Promise<number | null> {
    if (job.status === 'completed') return 100;
    if (TERMINAL.has(job.status)) return null;
    const value = job.status === 'pending' ? null : await this.options.redis.run((client) => client.get(this.#progressKey(job.id)));
    // A fresh pending job (the 201's own answer) is in the queue: not worth a command.
    const stale = job.status === 'running' || Date.parse(job.createdAt) < Date.now() - this.options.lockMs;
    if (value === null && stale) await this.#requeueIfLost(job).catch(() => undefined);
    return value === null ? 0 : Number(value);
  }

  /**
   * Queues again an unfinished job that has no queue entry: one that a
   * version before PatientJobStore lost to a Redis outage, its record left
   * `pending` or `running` for ever. Checked when a poll finds no progress
   * (a job pending for longer than the lock, or a running one nobody runs),
   * so it costs one command there and none for a job that runs. A poll
   * that races the job's completion may queue it twice: the second run
   * finds the record final and does nothing.
   */
  async #requeueIfLost(job: JobRecord): Promise<void> {
    if ((await this.options.redis.run(() => this.#queue.getJobState(job.id))) !== 'unknown') return;
    this.options.logger.warn({ job: job.id, status: job.status }, 'an unfinished job had no queue entry; queued again');
    await this.enqueue(job);
  }

  async cancel(id: string): Promise<JobRecord | undefined> {
    const record = await this.options.store.update(id, { status: 'cancelled', completedAt: new Date().toISOString() }, ['pending', 'running']);
    await this.options.redis.run((client) => client.publish(this.#cancelChannel(), id));
    return record;
  }

  settled(id: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.#waiters.wait(id, timeoutMs, signal);
  }

  releaseWaits(): void {
    this.#waiters.releaseAll();
  }

  /**
   * Aborts this node's running jobs and leaves them locked in the queue: once
   * the lock runs out another node (or this one, restarted) runs them again.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    this.#waiters.releaseAll();
    for (const running of this.#running.values()) running.controller.abort();
    await this.#worker.close(true).catch(() => undefined);
    await this.#queue.close().catch(() => undefined);
    for (const connection of this.#connections) connection.disconnect();
  }

  async #process(job: Job, token: string | undefined): Promise<void> {
    // Jobs queued by a version before fair ordering carry no owner.
    const { id, owner = '' } = job.data as { id: string; owner?: string };
    if (owner !== '' && job.attemptsStarted <= 1) {
      await this.options.redis.run((client) => client.eval(COUNT_OFF, 1, this.#waitingKey(owner))).catch(() => undefined);
    }
    const running: Running = { controller: new AbortController(), progress: new Int32Array(new SharedArrayBuffer(4)) };
    this.#running.set(id, running);
    const reporter = setInterval(() => {
      void this.options.redis
        .run((client) => client.set(this.#progressKey(id), String(Atomics.load(running.progress, 0)), 'PX', 60_000))
        .catch(() => undefined);
    }, PROGRESS_EVERY_MS);
    try {
      for (;;) {
        const outcome = await executeJob(
          { ...this.options, store: this.#store },
          id,
          { signal: running.controller.signal, progress: running.progress },
          { id: owner, weight: this.options.weightOf(owner) },
        );
        // Shutting down: never settle, so BullMQ neither completes nor fails the job; its lock runs out and it runs again.
        if (this.#closed) await new Promise<never>(() => undefined);
        if (outcome === 'finished') {
          // Long polls on every node (this one included, through its subscription) learn of it.
          await this.options.redis.run((client) => client.publish(this.#settledChannel(), id)).catch(() => undefined);
          return;
        }
        await sleep(RETRY_MS);
      }
    } catch (error) {
      // Shutting down: as above, the lock runs out and the job runs again.
      if (this.#closed) await new Promise<never>(() => undefined);
      if (error instanceof DependencyUnavailable) return await this.#handBack(job, token, id);
      // A bug: BullMQ fails the job and drops it; its record says so rather than staying `running` for ever.
      await this.#store
        .update(id, { status: 'failed', completedAt: new Date().toISOString(), error: INTERNAL_FAILURE }, ['pending', 'running'])
        .catch(() => undefined);
      throw error;
    } finally {
      clearInterval(reporter);
      this.#running.delete(id);
    }
  }

  /**
   * Redis stayed unavailable longer than the patient store waits: the job
   * goes back to the queue (moveToDelayed keeps its attempts and priority)
   * and DelayedError tells BullMQ to leave it there. The worker's connection
   * queues the command until Redis is back. If the lock ran out meanwhile
   * the move fails, and the stalled-job check has put the job back already.
   */
  async #handBack(job: Job, token: string | undefined, id: string): Promise<never> {
    this.options.logger.warn({ job: id }, 'redis unavailable while running a queued job; it goes back to the queue to run again');
    await job.moveToDelayed(Date.now() + RETRY_MS, token);
    throw new DelayedError();
  }

  /** How many of this owner's jobs wait in the queue: the next one's rank. */
  #waitingKey(owner: string): string {
    return this.options.redis.key('jobs-waiting', owner);
  }

  #progressKey(id: string): string {
    return this.options.redis.key('job', id, 'progress');
  }

  #cancelChannel(): string {
    return this.options.redis.key('cancel');
  }

  #settledChannel(): string {
    return this.options.redis.key('settled');
  }
}
