// Assembles the process: pool, key store, limits, route table, listener,
// and the graceful shutdown that takes them down in reverse order.
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { KeyStore } from './auth/key-store.js';
import { tierIncludes } from './auth/tiers.js';
import { healthRoute } from './accel/health.js';
import { accelRoutes } from './accel/routes.js';
import { metricsRoute } from './accel/metrics.js';
import { Health } from './health.js';
import { Cors } from './http/cors.js';
import { Lifecycle } from './http/lifecycle.js';
import type { PipelineDeps } from './http/pipeline.js';
import { RateLimits } from './http/rate-limit.js';
import type { Route } from './http/route.js';
import { registerRoutes } from './http/router.js';
import { uws, type us_listen_socket } from './http/uws.js';
import { metricsRegistry } from './metrics/exposition.js';
import { RequestStats } from './metrics/request-stats.js';
import { WorkerPool } from './pool/pool.js';
import { capabilitiesRoute } from './render/capabilities.js';
import { probeRoutes } from './render/probes.js';
import { renderRoute } from './render/render.js';
import { jobRoutes } from './render/jobs.js';
import { JobRunner } from './jobs/runner.js';
import { FileJobStore } from './store/file-job-store.js';
import { MemoryIdempotencyStore } from './store/idempotency.js';
import { MemorySessionStore } from './store/sessions.js';
import { sessionRoutes } from './render/sessions.js';

export interface ServerOptions {
  readonly logger: Logger;
  /** Worker module; tests substitute fixture workers. Default: the built workers/index.js. */
  readonly workerFile?: string;
  /** Passed to every worker (tests share a SharedArrayBuffer through it). */
  readonly workerData?: unknown;
  /** Routes added to the table, subject to the same edition filter (for embedding and tests). */
  readonly extraRoutes?: readonly Route[];
  /** The circuit breaker's clock; tests pass their own to step through its cooldown without waiting. */
  readonly breakerNow?: () => number;
}

export interface RunningServer {
  readonly port: number;
  readonly pool: WorkerPool;
  /** Graceful: readiness false, listener closed, in-flight requests finished (bounded), pool closed. */
  close(): Promise<void>;
}

const DEFAULT_WORKER_FILE = fileURLToPath(new URL('../workers/index.js', import.meta.url));

/** How many consecutive worker crashes open the breaker (timeouts never count), and how long it stays open. */
const BREAKER_THRESHOLD = 5;
const BREAKER_COOLDOWN_MS = 10_000;

export async function startServer(config: Config, options: ServerOptions): Promise<RunningServer> {
  const { logger } = options;
  const keys = await KeyStore.open({
    entries: config.apiKeys,
    file: config.apiKeysFile,
    reloadMs: config.apiKeysReloadMs,
    logger,
  });
  if (keys.size === 0) throw new Error('the key store is empty: set PLATEN_API_KEYS or PLATEN_API_KEYS_FILE');

  const pool = new WorkerPool({
    filename: options.workerFile ?? DEFAULT_WORKER_FILE,
    threads: config.workers,
    maxQueue: config.maxQueue,
    timeoutMs: config.timeoutMs,
    memoryMb: config.workerMemoryMb,
    breakerThreshold: BREAKER_THRESHOLD,
    breakerCooldownMs: BREAKER_COOLDOWN_MS,
    breakerNow: options.breakerNow,
    workerData: options.workerData,
  });

  await pool.warm();

  const jobs = await FileJobStore.open(config.dataDir, logger);
  const idempotency = new MemoryIdempotencyStore(jobs.all(), (id) => jobs.get(id) !== undefined);
  const runner = new JobRunner({
    store: jobs,
    pool,
    concurrency: config.jobConcurrency,
    timeoutMs: config.jobTimeoutMs,
    maxPages: config.maxPages,
    retentionMs: config.jobRetentionMs,
    logger,
    onRemoved: (job) => job.idempotency !== null && idempotency.forget(job.owner, job.idempotency.key),
  });
  await runner.recover();
  const sessions = config.sessionsEnabled ? new MemorySessionStore(config.sessionIdleMs) : undefined;

  const lifecycle = new Lifecycle();
  const health = new Health(pool, keys, lifecycle, config.version, config.edition);
  // Metrics exist only when enabled: otherwise /metrics is 404 and nothing is recorded per request.
  const requestStats = config.metricsEnabled ? new RequestStats() : undefined;
  const deps: PipelineDeps = {
    config,
    keys,
    limits: new RateLimits({
      ipRpm: config.ipRpm,
      rpmByTier: config.rpmByTier,
      authFailuresPerMinute: config.authFailuresPerMinute,
      tenantRpm: config.tenantRpm,
    }),
    cors: new Cors(config.corsOrigins),
    logger,
    lifecycle,
    requestStats,
  };

  const routes: Route[] = [
    ...probeRoutes(health),
    healthRoute(health),
    ...(requestStats === undefined
      ? []
      : [metricsRoute(metricsRegistry({ requests: requestStats, tasks: pool.tasks, pool: () => pool.stats, inFlight: () => lifecycle.inFlight }))]),
    capabilitiesRoute(() => routes, config.version),
    renderRoute(pool, config.maxPages),
    ...jobRoutes({ pool, store: jobs, runner, idempotency, apiVersion: config.version }),
    // Session routes exist only when enabled (render spec section 1): otherwise 404.
    ...(sessions === undefined
      ? []
      : sessionRoutes({
          pool,
          store: sessions,
          apiVersion: config.version,
          maxSessions: config.maxSessions,
          maxOperations: config.sessionMaxOperations,
          maxBytes: config.maxBodyBytes,
          maxPages: config.maxPages,
          idleSeconds: Math.ceil(config.sessionIdleMs / 1000),
        })),
    ...accelRoutes(pool, config),
    ...(options.extraRoutes ?? []),
  ].filter((route) => route.auth === 'none' || tierIncludes(config.edition, route.auth));

  requestStats?.describe(routes);
  const app = uws.App();
  registerRoutes(app, routes, deps);
  const listenSocket = await listen(app, config.host, config.port);
  const port = uws.us_socket_local_port(listenSocket as never);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      lifecycle.startDraining();
      uws.us_listen_socket_close(listenSocket);
      const drained = await lifecycle.drained(config.shutdownGraceMs);
      if (!drained) logger.warn({ in_flight: lifecycle.inFlight }, 'shutdown grace period over; closing with requests in flight');
      // Closes the keep-alive connections that are still open.
      (app as unknown as { close(): void }).close();
      keys.close();
      sessions?.close();
      // Running jobs are stopped and stay `running` on disk: they run again after a restart.
      await runner.close();
      await pool.close();
    })());

  return { port, pool, close };
}

function listen(app: ReturnType<typeof uws.App>, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) reject(new Error(`cannot listen on ${host}:${port} (in use, or not an address of this machine)`));
      else resolve(socket);
    });
  });
}
