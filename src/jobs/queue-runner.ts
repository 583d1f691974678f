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
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { TERMINAL, type JobExecutor, type JobRecord } from '../store/jobs.js';
import { RedisConnection } from '../store/redis/connection.js';
import { executeJob, type ExecuteOptions } from './execute.js';
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
  #closed = false;

  constructor(private readonly options: QueueRunnerOptions) {
    const { redis, url, lockMs } = options;
    const prefix = redis.key('bull');
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
    this.#worker = new Worker('jobs', (job) => this.#process(job), {
      connection: workerConnection,
      prefix,
      concurrency: options.concurrency,
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      // A job whose node keeps dying is not retried for ever.
      maxStalledCount: 3,
    });
    this.#worker.on('error', () => undefined);
    this.#worker.on('failed', (job, error) => this.options.logger.error({ job: job?.id, err: error }, 'queued job failed in the runner'));
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
    if (job.status === 'pending') return 0;
    if (TERMINAL.has(job.status)) return null;
    const value = await this.options.redis.run((client) => client.get(this.#progressKey(job.id)));
    return value === null ? 0 : Number(value);
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
    this.#waiters.releaseAll();
    for (const running of this.#running.values()) running.controller.abort();
    await this.#worker.close(true).catch(() => undefined);
    await this.#queue.close().catch(() => undefined);
    for (const connection of this.#connections) connection.disconnect();
  }

  async #process(job: Job): Promise<void> {
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
          this.options,
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
    } finally {
      clearInterval(reporter);
      this.#running.delete(id);
    }
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
