// Assembles the process: pool, key store, limits, route table, listener,
// and the graceful shutdown that takes them down in reverse order.
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.js';
import type { WorkerSettings } from '../workers/protocol.js';
import { KeyStore } from './auth/key-store.js';
import { tierIncludes } from './auth/tiers.js';
import { healthRoute } from './accel/health.js';
import { accelRoutes } from './accel/routes.js';
import { VectorStores } from './store/vectors/stores.js';
import { metricsRoute } from './accel/metrics.js';
import { Health } from './health.js';
import { BodyBudget } from './http/body-budget.js';
import { Cors } from './http/cors.js';
import { Lifecycle } from './http/lifecycle.js';
import type { PipelineDeps } from './http/pipeline.js';
import { RateLimits } from './http/rate-limit.js';
import { routeGroup, type MountedRoute } from './http/route.js';
import { registerRoutes } from './http/router.js';
import { claimSocketPath, listenUnix, removeSocketFile } from './http/unix-socket.js';
import { uws, type us_listen_socket } from './http/uws.js';
import { RequestStats } from './metrics/request-stats.js';
import { WorkerPool } from './pool/pool.js';
import { capabilitiesRoute } from './render/capabilities.js';
import { capabilityRoutes } from './render/capability-routes.js';
import { probeRoutes } from './render/probes.js';
import { renderRoute } from './render/render.js';
import { fontRoutes } from './render/fonts.js';
import { jobRoutes } from './render/jobs.js';
import { sessionRoutes } from './render/sessions.js';
import { ApprovalGate } from './auth/approvals.js';
import { approvalRoutes } from './render/approvals.js';
import { clusterRoute } from './accel/cluster.js';
import { openBackends } from './backends.js';

export interface ServerOptions {
  readonly logger: Logger;
  /** Worker module; tests substitute fixture workers. Default: the built workers/index.js. */
  readonly workerFile?: string;
  /** Passed to every worker (tests share a SharedArrayBuffer through it). */
  readonly workerData?: unknown;
  /** Routes added to the table (mounted with routeGroup), subject to the same edition filter (for embedding and tests). */
  readonly extraRoutes?: readonly MountedRoute[];
  /** The wall clock of session lifetimes (ms since the epoch); tests pass their own to expire a session without waiting. */
  readonly now?: () => number;
  /** The circuit breaker's clock; tests pass their own to step through its cooldown without waiting. */
  readonly breakerNow?: () => number;
}

export interface RunningServer {
  readonly port: number;
  /** The sidecar's Unix socket (PLATEN_SOCKET), when configured. */
  readonly socketPath: string | undefined;
  readonly pool: WorkerPool;
  /** The vector stores of /v1/rag/index and /v1/rag/search (tests wait on their index builds). */
  readonly vectors: VectorStores;
  /** Graceful: readiness false, listener closed, in-flight requests finished (bounded), pool closed. */
  close(): Promise<void>;
}

const DEFAULT_WORKER_FILE = fileURLToPath(new URL('../workers/index.js', import.meta.url));

/** How many consecutive worker crashes open the breaker (timeouts never count), and how long it stays open. */
const BREAKER_THRESHOLD = 5;
const BREAKER_COOLDOWN_MS = 10_000;

export async function startServer(config: Config, options: ServerOptions): Promise<RunningServer> {
  const { logger } = options;
  // Checked before anything starts: a path that cannot be taken stops start-up with nothing to undo.
  if (config.socketPath !== undefined) await claimSocketPath(config.socketPath);
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
    queueTargetMs: config.queueTargetMs,
    queueIntervalMs: config.queueIntervalMs,
    tierWeights: config.weightByTier,
    workerData: workerData(config, options.workerData),
  });

  await pool.warm();
  // A broken key file stops start-up here, naming its variable, rather than answering 500 on first use.
  if (config.signingP12File !== undefined || config.signingP12Password !== undefined || config.attestationKeyFile !== undefined) {
    const problems = await pool.checkDeployment({
      p12File: config.signingP12File,
      p12Password: config.signingP12Password,
      attestationKeyFile: config.attestationKeyFile,
      dataDir: config.dataDir,
    });
    if (problems.length > 0) {
      keys.close();
      await pool.close();
      throw new ConfigError(problems);
    }
  }

  let port = config.port;
  const weightOf = (owner: string) => {
    const principal = keys.byLabel(owner);
    return principal === undefined ? 1 : pool.client(principal).weight;
  };
  const backends = await openBackends(config, pool, logger, () => `${config.host}:${port}`, weightOf, options.now);
  // The remote embedding models of /v1/rag/embed, when the deployment names a provider (its HTTP client loaded only then).
  const embeddings = config.embeddings === undefined ? undefined : new (await import('./accel/rag/embeddings-provider.js')).EmbeddingsProvider(config.embeddings);
  // The vector stores of /v1/rag/index and /v1/rag/search; the embedded one opens its directory on first use.
  const vectors = new VectorStores({
    dataDir: config.dataDir,
    indexMinRows: config.vectorIndexMinRows,
    allow: config.vectorStoreAllow,
    sealingKey: config.vectorStoreKey,
    redis: backends.redis,
    logger,
    pgPools: config.pgvectorPools,
  });
  const { jobs, runner, idempotency, sessions, approvals: approvalStore } = backends;
  // The approval flow exists only when some operation needs approval.
  const approvals =
    approvalStore === undefined
      ? undefined
      : new ApprovalGate({ store: approvalStore, operations: new Set(config.approvalRequired), ttlMs: config.approvalTtlMs });

  const lifecycle = new Lifecycle();
  const health = new Health(pool, keys, lifecycle, config.version, config.edition, backends.mode, backends.redis);
  // Metrics exist only when enabled: otherwise /metrics is 404 and nothing is recorded per request.
  const requestStats = config.metricsEnabled ? new RequestStats() : undefined;
  const bodyBudget = new BodyBudget(config.bodyBudgetBytes);
  // prom-client is loaded only when metrics are on: it costs ~50 ms of CPU and ~3 MB of heap at start-up (bench/start-up.ts).
  const metrics =
    requestStats === undefined
      ? []
      : [metricsRoute((await import('./metrics/exposition.js')).metricsRegistry({ requests: requestStats, tasks: pool.tasks, pool: () => pool.stats, inFlight: () => lifecycle.inFlight, bodyBytesHeld: () => bodyBudget.held }))];
  const deps: PipelineDeps = {
    config,
    keys,
    limits: await RateLimits.open({
      ipRpm: config.ipRpm,
      rpmByTier: config.rpmByTier,
      authFailuresPerMinute: config.authFailuresPerMinute,
      redis: backends.redis === undefined ? undefined : { connection: backends.redis, prefix: backends.redis.key('limit') },
      tenantRpm: config.tenantRpm,
    }),
    cors: new Cors(config.corsOrigins),
    logger,
    lifecycle,
    approvals,
    requestStats,
    bodyBudget,
  };

  // Each API's routes are one group: the group gives them their family (problem flavour, envelope, metrics).
  const routes: MountedRoute[] = [
    ...routeGroup('render', [
      ...probeRoutes(health),
      capabilitiesRoute(() => routes, config.version),
      renderRoute(pool, config.maxPages, backends.fonts),
      ...fontRoutes(pool, backends.fonts, config),
      ...capabilityRoutes(pool, config),
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
          now: options.now ?? Date.now,
            fonts: backends.fonts,
          })),
      ...(approvalStore === undefined ? [] : approvalRoutes(approvalStore, config.version)),
    ]),
    ...routeGroup('accel', [
      healthRoute(health),
      ...metrics,
      ...accelRoutes(pool, config, embeddings, vectors),
      clusterRoute(backends.nodes, config.version),
    ]),
    ...(options.extraRoutes ?? []),
  ].filter((route) => route.auth === 'none' || tierIncludes(config.edition, route.auth));

  requestStats?.describe(routes);
  const app = uws.App();
  try {
    checkApprovalOperations(config.approvalRequired, routes);
    registerRoutes(app, routes, deps);
  } catch (error) {
    // A table the router refuses (a route twice, one path segment in two APIs), or a gate on operations it does
    // not have, stops start-up with nothing left running.
    keys.close();
    await backends.close();
    embeddings?.close();
    await vectors.close();
    await pool.close();
    throw error;
  }
  const listenSocket = await listen(app, config.host, config.port);
  port = uws.us_socket_local_port(listenSocket as never);
  // Redis down at start: the heartbeat timer announces the node once it is back.
  await backends.nodes.announce().catch(() => undefined);
  // Sidecar mode: a second app on the Unix socket with the same routes; its requests are local (no rate limits).
  const sidecar = config.socketPath === undefined ? undefined : { app: uws.App(), path: config.socketPath, socket: undefined as us_listen_socket | undefined };
  if (sidecar !== undefined) registerRoutes(sidecar.app, routes, { ...deps, local: true });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      lifecycle.startDraining();
      // Long polls of jobs would otherwise hold the drain for their whole wait.
      runner.releaseWaits();
      uws.us_listen_socket_close(listenSocket);
      if (sidecar?.socket !== undefined) {
        uws.us_listen_socket_close(sidecar.socket);
        removeSocketFile(sidecar.path);
      }
      const drained = await lifecycle.drained(config.shutdownGraceMs);
      if (!drained) logger.warn({ in_flight: lifecycle.inFlight }, 'shutdown grace period over; closing with requests in flight');
      // Closes the keep-alive connections that are still open.
      (app as unknown as { close(): void }).close();
      if (sidecar !== undefined) (sidecar.app as unknown as { close(): void }).close();
      keys.close();
      // Running jobs are stopped and stay `running`: they run again after a restart (or on another node).
      await backends.close();
      embeddings?.close();
      await vectors.close();
      await pool.close();
    })());

  if (sidecar !== undefined) {
    try {
      sidecar.socket = listenUnix(sidecar.app, sidecar.path);
    } catch (error) {
      await close();
      throw error;
    }
  }

  return { port, socketPath: sidecar?.path, pool, vectors, close };
}

function listen(app: ReturnType<typeof uws.App>, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) reject(new Error(`cannot listen on ${host}:${port} (in use, or not an address of this machine)`));
      else resolve(socket);
    });
  });
}

/** Every worker thread's settings (workers/protocol.ts WorkerSettings), over what a test passes to its fixture workers. */
function workerData(config: Config, extra: unknown): WorkerSettings & Record<string, unknown> {
  return { ...(typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : {}), maxDecodedBytes: config.maxDecodedBytes };
}

/**
 * PLATEN_APPROVAL_REQUIRED may name only operations this deployment has. It
 * is a safety control: a misspelt name ("rendr") or one of a feature that is
 * off (sessions) would leave the call it meant to gate running without
 * approval, which a warning in the log does not prevent. So start-up stops,
 * naming it and the operations there are.
 */
function checkApprovalOperations(required: readonly string[], routes: readonly MountedRoute[]): void {
  const operations = new Set(routes.flatMap((route) => (route.operation === undefined ? [] : [route.operation])));
  const unknown = required.filter((name) => !operations.has(name));
  if (unknown.length === 0) return;
  throw new ConfigError([
    `PLATEN_APPROVAL_REQUIRED names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, which this deployment does not have (its edition or settings leave them out, or a typo); its operations are ${[...operations].sort().join(', ')}`,
  ]);
}
