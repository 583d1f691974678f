// The one typed configuration. This is the only module that reads
// process.env; everything else receives the frozen Config as an argument.
// Every problem is collected and reported at once (fastify's
// initial-config-validation does the same), so an operator fixes a bad
// deployment in one round instead of one variable per restart.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { EnvSchema, type Env } from './config-env.js';
import type { Config, EmbeddingsProviderConfig } from './config-types.js';

export type { Config, EmbeddingsProviderConfig } from './config-types.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Every variable this version reads (the README documents each; a test checks it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.entries);

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** PLATEN_* variables this version does not know: most often a typo, or a feature not built yet. */
export function unknownVariables(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return Object.keys(env).filter((key) => key.startsWith('PLATEN_') && !(key in EnvSchema.entries));
}

/** Reads and validates the environment; throws a ConfigError listing every problem. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.entries)) {
    const value = env[key];
    // An empty variable means "not set", as in most shells' ${VAR:-default}.
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const result = v.safeParse(EnvSchema, relevant, { abortEarly: false });
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => `${v.getDotPath(issue) ?? 'environment'}: ${issue.message} (got ${JSON.stringify(issue.input)})`),
    );
  }
  if (result.output.PLATEN_EMBEDDINGS_URL !== undefined && result.output.PLATEN_EMBEDDINGS_MODELS.length === 0) {
    throw new ConfigError(['PLATEN_EMBEDDINGS_MODELS: must name the models clients may use when PLATEN_EMBEDDINGS_URL is set']);
  }
  const proxyEnv = Object.freeze(Object.fromEntries(PROXY_VARIABLES.map((name) => [name, env[name]])));
  return Object.freeze(fromEnv(result.output, proxyEnv));
}

/** Read for outbound calls (the embeddings provider), the way the client library and curl read them. */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY'] as const;

function embeddingsProvider(env: Env, proxyEnv: Readonly<Record<string, string | undefined>>): EmbeddingsProviderConfig | undefined {
  if (env.PLATEN_EMBEDDINGS_URL === undefined) return undefined;
  return Object.freeze({
    url: new URL(env.PLATEN_EMBEDDINGS_URL),
    apiKey: env.PLATEN_EMBEDDINGS_API_KEY,
    models: Object.freeze(env.PLATEN_EMBEDDINGS_MODELS),
    timeoutMs: env.PLATEN_EMBEDDINGS_TIMEOUT_MS,
    batchSize: env.PLATEN_EMBEDDINGS_BATCH,
    proxyEnv,
  });
}

/** Room for the JSON around a base64 member (field names, options): generous, since it only moves the cap. */
const JSON_HEADROOM_BYTES = 1024 * 1024;

const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Per-tier body limits. A tier without its own limit has
 * PLATEN_MAX_BODY_BYTES when that is set; when neither is set, the larger of
 * 64 MiB and what the largest content cap needs in a JSON body: base64 makes
 * a PLATEN_MAX_FONT_BYTES font (50 MiB) 66.7 MiB, over 64 MiB, so the body
 * cap would answer `payload-too-large` first and the font's own
 * `font-too-large` (which tells the client what is too large) could never
 * be reached.
 */
function bodyLimits(env: Env): Pick<Config, 'maxBodyBytesByTier' | 'maxBodyBytesAnyTier'> {
  const base64 = (bytes: number) => 4 * Math.ceil(bytes / 3);
  const fallback =
    env.PLATEN_MAX_BODY_BYTES ??
    Math.min(999_999_999, Math.max(DEFAULT_MAX_BODY_BYTES, base64(env.PLATEN_MAX_FONT_BYTES) + JSON_HEADROOM_BYTES, base64(env.PLATEN_MAX_IMAGE_BYTES) + JSON_HEADROOM_BYTES));
  const byTier = Object.freeze({
    core: env.PLATEN_MAX_BODY_BYTES_CORE ?? fallback,
    pro: env.PLATEN_MAX_BODY_BYTES_PRO ?? fallback,
    enterprise: env.PLATEN_MAX_BODY_BYTES_ENTERPRISE ?? fallback,
  });
  return { maxBodyBytesByTier: byTier, maxBodyBytesAnyTier: Math.max(byTier.core, byTier.pro, byTier.enterprise) };
}

/**
 * 512 MiB, or room for two bodies at the largest tier limit if that is more:
 * with the default limits, seven 64 MiB uploads at once. Set lower than one
 * body, it refuses every body that size (the README says so).
 */
function bodyBudget(env: Env): number {
  return env.PLATEN_BODY_BUDGET_BYTES ?? Math.max(512 * 1024 * 1024, 2 * bodyLimits(env).maxBodyBytesAnyTier);
}

function fromEnv(env: Env, proxyEnv: Readonly<Record<string, string | undefined>>): Config {
  return {
    version: packageJson.version,
    host: env.PLATEN_HOST,
    port: env.PLATEN_PORT,
    edition: env.PLATEN_EDITION,
    apiKeys: env.PLATEN_API_KEYS,
    apiKeysFile: env.PLATEN_API_KEYS_FILE,
    apiKeysReloadMs: env.PLATEN_API_KEYS_RELOAD_MS,
    workers: env.PLATEN_WORKERS,
    // Four waiting tasks per thread keeps every thread fed between
    // completions without letting latency grow unbounded under overload.
    maxQueue: env.PLATEN_MAX_QUEUE ?? env.PLATEN_WORKERS * 4,
    queueTargetMs: env.PLATEN_QUEUE_TARGET_MS,
    queueIntervalMs: env.PLATEN_QUEUE_INTERVAL_MS,
    weightByTier: Object.freeze({ core: env.PLATEN_CORE_WEIGHT, pro: env.PLATEN_PRO_WEIGHT, enterprise: env.PLATEN_ENTERPRISE_WEIGHT }),
    timeoutMs: env.PLATEN_TIMEOUT_MS,
    workerMemoryMb: env.PLATEN_WORKER_MEMORY_MB,
    maxBodyBytes: env.PLATEN_MAX_BODY_BYTES ?? DEFAULT_MAX_BODY_BYTES,
    corsOrigins: Object.freeze(env.PLATEN_CORS_ORIGINS),
    logLevel: env.PLATEN_LOG_LEVEL,
    errorsBase: env.PLATEN_ERRORS_BASE.replace(/\/+$/, ''),
    rpmByTier: Object.freeze({ core: env.PLATEN_CORE_RPM, pro: env.PLATEN_PRO_RPM, enterprise: env.PLATEN_ENTERPRISE_RPM }),
    ...bodyLimits(env),
    bodyBudgetBytes: bodyBudget(env),
    ipRpm: env.PLATEN_IP_RPM,
    authFailuresPerMinute: env.PLATEN_AUTH_FAILURES_PER_MIN,
    shutdownGraceMs: env.PLATEN_SHUTDOWN_GRACE_MS,
    pgvectorPools: Object.freeze({ maxPools: env.PLATEN_PGVECTOR_MAX_POOLS, poolSize: env.PLATEN_PGVECTOR_POOL_SIZE, idleMs: env.PLATEN_PGVECTOR_IDLE_MS }),
    bodyTimeoutMs: env.PLATEN_BODY_TIMEOUT_MS,
    bodyMinRate: env.PLATEN_BODY_MIN_RATE,
    maxPages: env.PLATEN_MAX_PAGES,
    readWorkBudget: env.PLATEN_READ_WORK_BUDGET,
    signingP12File: env.PLATEN_SIGNING_P12_FILE,
    signingP12Password: env.PLATEN_SIGNING_P12_PASSWORD,
    attestationKeyFile: env.PLATEN_ATTESTATION_KEY_FILE,
    dataDir: env.PLATEN_DATA_DIR,
    jobRetentionMs: env.PLATEN_JOB_RETENTION_S * 1000,
    // Twice the threads: one job's store writes overlap another's render, so jobs alone keep every thread busy.
    jobConcurrency: env.PLATEN_JOB_CONCURRENCY ?? env.PLATEN_WORKERS * 2,
    jobTimeoutMs: env.PLATEN_JOB_TIMEOUT_MS,
    sessionsEnabled: env.PLATEN_SESSIONS_ENABLED,
    sessionIdleMs: env.PLATEN_SESSION_IDLE_S * 1000,
    maxSessions: env.PLATEN_MAX_SESSIONS,
    sessionMaxOperations: env.PLATEN_SESSION_MAX_OPERATIONS,
    redisUrl: env.PLATEN_REDIS_URL,
    redisPrefix: env.PLATEN_REDIS_PREFIX,
    redisTimeoutMs: env.PLATEN_REDIS_TIMEOUT_MS,
    clusterId: env.PLATEN_CLUSTER_ID,
    nodeId: env.PLATEN_NODE_ID ?? newNodeId(),
    jobLockMs: env.PLATEN_JOB_LOCK_MS,
    approvalRequired: Object.freeze(env.PLATEN_APPROVAL_REQUIRED),
    approvalTtlMs: env.PLATEN_APPROVAL_TTL_S * 1000,
    maxFontBytes: env.PLATEN_MAX_FONT_BYTES,
    fontLimits: Object.freeze({
      countByTier: Object.freeze({ core: env.PLATEN_FONTS_MAX_CORE, pro: env.PLATEN_FONTS_MAX, enterprise: env.PLATEN_FONTS_MAX }),
      clientBytes: env.PLATEN_FONTS_MAX_CLIENT_BYTES,
    }),
    embeddings: embeddingsProvider(env, proxyEnv),
    embedMaxInputs: env.PLATEN_EMBED_MAX_INPUTS,
    vectorStoreAllow: Object.freeze(env.PLATEN_VECTOR_STORE_ALLOW),
    vectorStoreKey: env.PLATEN_VECTOR_STORE_KEY === undefined ? undefined : Buffer.from(env.PLATEN_VECTOR_STORE_KEY, 'base64'),
    vectorIndexMinRows: env.PLATEN_VECTOR_INDEX_MIN_ROWS,
    maxImagePixels: env.PLATEN_MAX_IMAGE_PIXELS,
    maxDecodedBytes: env.PLATEN_MAX_DECODED_BYTES,
    socketPath: env.PLATEN_SOCKET,
    maxImageBytes: env.PLATEN_MAX_IMAGE_BYTES,
    metricsEnabled: env.PLATEN_METRICS_ENABLED,
    highControl: env.PLATEN_HIGH_CONTROL,
    // The accelerator spec (section 8): the enterprise limit, "with an independent limit per tenant".
    tenantRpm: env.PLATEN_TENANT_RPM ?? env.PLATEN_ENTERPRISE_RPM,
  };
}

/**
 * The default PLATEN_NODE_ID: unique when several processes share a host.
 * Made here, not by the node registry, so the configuration depends on nothing above it.
 */
function newNodeId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
