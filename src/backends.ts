// Where state lives: the embedded mode (job files under PLATEN_DATA_DIR,
// everything else in memory, one node) or the multi-node mode
// (PLATEN_REDIS_URL: jobs, idempotency, sessions, approvals, rate-limit
// counters and node heartbeats in Redis, jobs queued with BullMQ:
// cluster-backends.ts, loaded only then). The routes see only the interfaces
// in src/store.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { JobRunner } from './jobs/runner.js';
import type { WorkerPool } from './pool/pool.js';
import { MemoryApprovalStore, type ApprovalStore } from './store/approvals.js';
import { FileJobStore } from './store/file-job-store.js';
import { FileFontStore, type FontStore } from './store/fonts.js';
import { MemoryIdempotencyStore, type IdempotencyStore } from './store/idempotency.js';
import type { JobExecutor, JobStore } from './store/jobs.js';
import { LocalNodeRegistry, NodeSampler, type NodeRegistry } from './store/nodes.js';
import type { RedisConnection } from './store/redis/connection.js';
import { MemorySessionStore, type SessionStore } from './store/sessions.js';

export interface Backends {
  readonly mode: 'standalone' | 'cluster';
  readonly jobs: JobStore;
  readonly runner: JobExecutor;
  readonly idempotency: IdempotencyStore;
  /** Only when PLATEN_SESSIONS_ENABLED. */
  readonly sessions: SessionStore | undefined;
  /** Only when PLATEN_APPROVAL_REQUIRED lists operations. */
  readonly approvals: ApprovalStore | undefined;
  readonly nodes: NodeRegistry;
  /** Registered fonts (PUT /api/v1/fonts/{family}). */
  readonly fonts: FontStore;
  /** The Redis client the rate limiters count in (multi-node mode). */
  readonly redis: RedisConnection | undefined;
  /** Stops the runner (running jobs run again later) and closes every store. */
  close(): Promise<void>;
}

/**
 * `weightOf` gives a job owner's share when clients' jobs contend (its key's
 * weight, else its tier's); the runners schedule by it.
 */
export async function openBackends(
  config: Config,
  pool: WorkerPool,
  logger: Logger,
  address: () => string,
  weightOf: (owner: string) => number,
  /** The wall clock of session lifetimes (ms since the epoch); tests step their own instead of waiting. */
  now: () => number = Date.now,
): Promise<Backends> {
  const executeWith = (fonts: FontStore) => ({ pool, timeoutMs: config.jobTimeoutMs, maxPages: config.maxPages, weightOf, fonts });
  const sampler = (runner: () => JobExecutor) =>
    new NodeSampler(config.nodeId, address, { activeJobs: () => runner().activeJobs, healthy: () => pool.stats.breaker === 'closed' });

  if (config.redisUrl === undefined) {
    const jobs = await FileJobStore.open(config.dataDir, logger);
    const fonts = new FileFontStore(config.dataDir);
    const execute = executeWith(fonts);
    const idempotency = new MemoryIdempotencyStore(jobs.all(), (id) => jobs.has(id));
    const runner = new JobRunner({
      ...execute,
      store: jobs,
      concurrency: config.jobConcurrency,
      retentionMs: config.jobRetentionMs,
      logger,
      onRemoved: (job) => void (job.idempotency !== null && idempotency.forget(job.owner, job.idempotency.key)),
    });
    await runner.recover();
    const sessions = config.sessionsEnabled ? new MemorySessionStore(config.sessionIdleMs, now) : undefined;
    const approvals = config.approvalRequired.length > 0 ? new MemoryApprovalStore() : undefined;
    return {
      mode: 'standalone',
      jobs,
      runner,
      idempotency,
      sessions,
      approvals,
      nodes: new LocalNodeRegistry(config.clusterId, sampler(() => runner)),
      fonts,
      redis: undefined,
      async close() {
        sessions?.close();
        approvals?.close();
        await runner.close();
        // After the runner: the outcomes of the tasks it waited for are written first.
        await jobs.close();
      },
    };
  }

  // Loaded only here: BullMQ, ioredis and the Redis stores cost a server without Redis ~300 ms of CPU and ~15 MB of heap at start-up (bench/start-up.ts).
  const { openClusterBackends } = await import('./cluster-backends.js');
  return openClusterBackends(config, config.redisUrl, { execute: executeWith, sampler, logger, now });
}
