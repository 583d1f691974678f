// A job the client was told exists (201) is never lost to a Redis outage
// (issue: a 1 s SIGSTOP lost every job that was finishing or being picked
// up: the runner's write failed, BullMQ failed the job and removed it, and
// the record stayed `running` or `pending` for ever). Each test makes Redis
// hang (SIGSTOP) at one exact point of a queued job's run, the moment the
// runner reads or writes the job store there, and lets it answer again once
// that call has failed; the job must then reach its final state by itself.
//
// Not black-box: hitting one exact write needs a store that can stall Redis
// on cue and a pool whose outcome the test chooses. Everything else is real:
// redis-server, ioredis, BullMQ, the Redis job store and the queue runner.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { QueueRunner } from '../src/jobs/queue-runner.js';
import { createLogger } from '../src/logger.js';
import type { WorkerPool } from '../src/pool/pool.js';
import type { JobPatch, JobRecord, JobStatus, JobStore } from '../src/store/jobs.js';
import { RedisConnection } from '../src/store/redis/connection.js';
import { RedisJobStore } from '../src/store/redis/job-store.js';
import { startRedis, type TestRedis } from './helpers/redis.js';
import { waitFor } from './helpers/wait.js';

/** The PING check's timeout: a stall is seen within 1.5 of it. */
const REDIS_TIMEOUT_MS = 100;

type Method = 'update' | 'body' | 'complete';

/** The real Redis job store, whose one armed call hangs Redis first: it then fails as it would in production. */
class StallingStore implements JobStore {
  #armed: { method: Method; when: (args: unknown[]) => boolean; tripped: () => void } | undefined;

  constructor(
    private readonly store: RedisJobStore,
    private readonly connection: RedisConnection,
    private readonly redis: TestRedis,
  ) {}

  /** Resolves once the next matching call has failed on a hung Redis (which stays hung for the caller to resume). */
  arm(method: Method, when: (args: unknown[]) => boolean = () => true): Promise<void> {
    return new Promise((tripped) => (this.#armed = { method, when, tripped }));
  }

  async #call<T>(method: Method, args: unknown[], call: () => Promise<T>): Promise<T> {
    const armed = this.#armed;
    if (armed === undefined || armed.method !== method || !armed.when(args)) return call();
    this.#armed = undefined;
    this.redis.pause();
    await waitFor(() => !this.connection.up, { timeoutMs: 5_000, what: 'the stall seen by the PING check' });
    try {
      return await call();
    } finally {
      armed.tripped();
    }
  }

  create(record: JobRecord, body: Uint8Array): Promise<void> {
    return this.store.create(record, body);
  }
  get(id: string): Promise<JobRecord | undefined> {
    return this.store.get(id);
  }
  update(id: string, patch: JobPatch, from?: readonly JobStatus[]): Promise<JobRecord | undefined> {
    return this.#call('update', [id, patch, from], () => this.store.update(id, patch, from));
  }
  body(id: string): Promise<Uint8Array | undefined> {
    return this.#call('body', [id], () => this.store.body(id));
  }
  putResult(id: string, pdf: Uint8Array): Promise<void> {
    return this.store.putResult(id, pdf);
  }
  complete(id: string, pdf: Uint8Array, completedAt: string): Promise<JobRecord | undefined> {
    return this.#call('complete', [id, pdf, completedAt], () => this.store.complete(id, pdf, completedAt));
  }
  result(id: string): Promise<Uint8Array | undefined> {
    return this.store.result(id);
  }
  remove(id: string): Promise<void> {
    return this.store.remove(id);
  }
}

/** What the pool answers for a job: its render's outcomes in turn (the last one repeats). */
type Answer = 'rendered' | 'render-failed' | 'refused';

/** A pool that renders nothing: each job's request body is its id, and the test says what its runs return. */
class ScriptedPool {
  readonly answers = new Map<string, Answer[]>();
  readonly runs = new Map<string, number>();

  run(_name: string, input: { body: ArrayBuffer; length: number }): Promise<unknown> {
    const id = Buffer.from(input.body, 0, input.length).toString('utf8');
    const count = this.runs.get(id) ?? 0;
    this.runs.set(id, count + 1);
    const script = this.answers.get(id) ?? ['rendered'];
    const answer = script[Math.min(count, script.length - 1)];
    if (answer === 'refused') return Promise.resolve({ ok: false, reason: 'saturated', cause: 'queue-full', retryAfterSeconds: 1 });
    const outcome =
      answer === 'rendered'
        ? { ok: true, value: { body: new TextEncoder().encode(`%PDF of ${id}`).buffer, mediaType: 'application/pdf' }, timings: { taskMs: 1 } }
        : { ok: false, code: 'invalid-request', detail: 'the scripted render failed' };
    return Promise.resolve({ ok: true, outcome, roundTripMs: 1, waitMs: 0 });
  }
}

interface Rig {
  readonly connection: RedisConnection;
  readonly jobs: RedisJobStore;
  readonly store: StallingStore;
  readonly pool: ScriptedPool;
  readonly runner: QueueRunner;
  readonly logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

let rigs = 0;

async function rig(redis: TestRedis, lockMs: number): Promise<Rig> {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('info', sink);
  const connection = await RedisConnection.open(redis.url, `outage-${process.pid}-${++rigs}`, logger, REDIS_TIMEOUT_MS);
  const jobs = new RedisJobStore(connection, 60_000);
  const store = new StallingStore(jobs, connection, redis);
  const pool = new ScriptedPool();
  const runner = new QueueRunner({
    store,
    pool: pool as unknown as WorkerPool,
    timeoutMs: 10_000,
    maxPages: 10,
    redis: connection,
    url: redis.url,
    concurrency: 2,
    lockMs,
    logger,
    weightOf: () => 1,
  });
  return {
    connection,
    jobs,
    store,
    pool,
    runner,
    logs,
    async close() {
      await runner.close();
      await connection.close();
    },
  };
}

let submitted = 0;

/** Stores and queues a job as POST /jobs does once it answers 201. */
async function submit(r: Rig, answers: Answer[] = ['rendered']): Promise<string> {
  const id = `job-${++submitted}`;
  r.pool.answers.set(id, answers);
  const record: JobRecord = { id, owner: 'tester', status: 'pending', createdAt: new Date().toISOString(), startedAt: null, completedAt: null, error: null, idempotency: null };
  await r.jobs.create(record, new TextEncoder().encode(id));
  await r.runner.enqueue(record);
  return id;
}

/** The record's final state, once it has one (a lost job never gets one). */
async function settled(r: Rig, id: string): Promise<JobRecord> {
  return waitFor(
    async () => {
      const record = r.connection.up ? await r.jobs.get(id).catch(() => undefined) : undefined;
      return record !== undefined && (record.status === 'completed' || record.status === 'failed') ? record : undefined;
    },
    { timeoutMs: 10_000, what: `job ${id} reaching a final state` },
  );
}

const patch = (args: unknown[]) => args[1] as JobPatch;

/** A Redis and a rig for one describe block, started before its tests and stopped after them (a paused Redis resumed first). */
function rigAround(lockMs: number): { readonly redis: TestRedis; readonly r: Rig } {
  const around = {} as { redis: TestRedis; r: Rig };
  before(async () => {
    around.redis = await startRedis();
    around.r = await rig(around.redis, lockMs);
  });
  after(async () => {
    around.redis?.resume();
    await around.r?.close();
    await around.redis?.stop();
  });
  return around;
}

describe('Redis hangs (SIGSTOP) while a queued job runs: the job still finishes', () => {
  const around = rigAround(5_000);

  const cases: Array<{ name: string; method: Method; when?: (args: unknown[]) => boolean; answers?: Answer[]; status: JobStatus }> = [
    { name: 'marking it running (picked up)', method: 'update', when: (args) => patch(args).status === 'running', status: 'completed' },
    { name: 'reading its request body', method: 'body', status: 'completed' },
    { name: 'storing its result and marking it completed', method: 'complete', status: 'completed' },
    { name: 'marking it failed', method: 'update', when: (args) => patch(args).status === 'failed', answers: ['render-failed'], status: 'failed' },
    { name: 'putting it back in line when the pool refused it', method: 'update', when: (args) => patch(args).status === 'pending', answers: ['refused', 'rendered'], status: 'completed' },
  ];
  for (const { name, method, when, answers, status } of cases) {
    test(name, async () => {
      const { r, redis } = around;
      const tripped = r.store.arm(method, when);
      const id = await submit(r, answers);
      await tripped;
      redis.resume();
      const record = await settled(r, id);
      assert.equal(record.status, status);
      if (status === 'completed') assert.equal(Buffer.from((await r.jobs.result(id)) ?? []).toString(), `%PDF of ${id}`);
    });
  }
});

describe('a record an older version left unfinished with no queue entry', () => {
  const around = rigAround(5_000);

  for (const status of ['running', 'pending'] as const) {
    test(`${status}: a poll queues it again and it completes`, async () => {
      const { r } = around;
      const id = `lost-${status}`;
      // Older than the lock, as any record lost before this version is.
      const createdAt = new Date(Date.now() - 60_000).toISOString();
      const record: JobRecord = { id, owner: 'tester', status, createdAt, startedAt: status === 'running' ? createdAt : null, completedAt: null, error: null, idempotency: null };
      await r.jobs.create(record, new TextEncoder().encode(id));
      assert.equal(await r.runner.progress(record), 0);
      assert.equal((await settled(r, id)).status, 'completed');
      assert.equal(r.pool.runs.get(id), 1);
    });
  }
});

describe('Redis hangs longer than the job lock: the job goes back to the queue and runs again', () => {
  // The shortest lock that still leaves the PING check room on a loaded machine.
  const around = rigAround(600);

  test('storing its result fails until the runner gives up waiting; the job then runs again and completes', async () => {
    const { r, redis } = around;
    const tripped = r.store.arm('complete');
    const id = await submit(r);
    await tripped;
    await waitFor(() => r.logs.some((line) => line.job === id && String(line.msg).includes('goes back to the queue')), {
      timeoutMs: 10_000,
      what: 'the runner handing the job back',
    });
    redis.resume();
    const record = await settled(r, id);
    assert.equal(record.status, 'completed');
    assert.equal(r.pool.runs.get(id), 2);
    assert.equal(Buffer.from((await r.jobs.result(id)) ?? []).toString(), `%PDF of ${id}`);
  });
});
