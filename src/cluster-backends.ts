// The multi-node mode's backends (PLATEN_REDIS_URL): jobs, idempotency,
// sessions, approvals, fonts and node heartbeats in Redis, jobs queued with
// BullMQ. Its own module so that backends.ts loads it, and with it BullMQ and
// ioredis, only when Redis is configured (bench/start-up.ts measures what a
// server without Redis saves).
import type { Logger } from 'pino';
import type { Backends } from './backends.js';
import type { Config } from './config.js';
import type { ExecuteOptions } from './jobs/execute.js';
import { QueueRunner } from './jobs/queue-runner.js';
import type { FontStore } from './store/fonts.js';
import type { JobExecutor } from './store/jobs.js';
import type { NodeSampler } from './store/nodes.js';
import { RedisApprovalStore } from './store/redis/approvals.js';
import { RedisConnection } from './store/redis/connection.js';
import { RedisFontStore } from './store/redis/fonts.js';
import { RedisIdempotencyStore } from './store/redis/idempotency.js';
import { RedisJobStore } from './store/redis/job-store.js';
import { RedisNodeRegistry } from './store/redis/nodes.js';
import { RedisSessionStore } from './store/redis/sessions.js';

/** What both modes share, built by backends.ts. */
export interface SharedParts {
  /** How jobs execute on the pool, given where the owners' fonts are. */
  readonly execute: (fonts: FontStore) => Omit<ExecuteOptions, 'store'> & { readonly weightOf: (owner: string) => number };
  readonly sampler: (runner: () => JobExecutor) => NodeSampler;
  readonly logger: Logger;
  readonly now: () => number;
}

export async function openClusterBackends(config: Config, redisUrl: string, { execute: executeWith, sampler, logger, now }: SharedParts): Promise<Backends> {
  const redis = await RedisConnection.open(redisUrl, config.redisPrefix, logger, config.redisTimeoutMs);
  const jobs = new RedisJobStore(redis, config.jobRetentionMs);
  const fonts = new RedisFontStore(redis, config.dataDir);
  const execute = executeWith(fonts);
  const idempotency = new RedisIdempotencyStore(redis, jobs, config.jobTimeoutMs + config.jobRetentionMs);
  const runner = new QueueRunner({ ...execute, store: jobs, redis, url: redisUrl, concurrency: config.jobConcurrency, lockMs: config.jobLockMs, logger });
  const sessions = config.sessionsEnabled ? new RedisSessionStore(redis, config.sessionIdleMs, now) : undefined;
  const approvals = config.approvalRequired.length > 0 ? new RedisApprovalStore(redis) : undefined;
  const nodes = new RedisNodeRegistry(config.clusterId, redis, sampler(() => runner));
  return {
    mode: 'cluster',
    jobs,
    runner,
    idempotency,
    sessions,
    approvals,
    nodes,
    fonts,
    redis,
    async close() {
      await runner.close();
      await nodes.close();
      await redis.close();
    },
  };
}
