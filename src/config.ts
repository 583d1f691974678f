// The one typed configuration. This is the only module that reads
// process.env; everything else receives the frozen Config as an argument.
// Every problem is collected and reported at once (fastify's
// initial-config-validation does the same), so an operator fixes a bad
// deployment in one round instead of one variable per restart.
import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { TIERS, type Tier } from './auth/tiers.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const integer = (min: number, max: number) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.integer(), v.minValue(min), v.maxValue(max));

const boolean = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.picklist(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1' || s === 'yes'),
);

const list = v.pipe(
  v.string(),
  v.transform((s) => s.split(',').map((item) => item.trim()).filter((item) => item.length > 0)),
);

const tier = v.picklist(TIERS, `must be one of ${TIERS.join(', ')}`);

const cores = availableParallelism();

const EnvSchema = v.object({
  PLATEN_HOST: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1)), '127.0.0.1'),
  PLATEN_PORT: v.optional(integer(0, 65535), '8080'),
  PLATEN_EDITION: v.optional(tier, 'enterprise'),
  PLATEN_API_KEYS: v.optional(v.string()),
  PLATEN_API_KEYS_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  PLATEN_API_KEYS_RELOAD_MS: v.optional(integer(50, 3_600_000), '1000'),
  PLATEN_WORKERS: v.optional(integer(1, 256), String(cores)),
  PLATEN_MAX_QUEUE: v.optional(integer(0, 100_000)),
  PLATEN_QUEUE_TARGET_MS: v.optional(integer(1, 600_000), '10'),
  PLATEN_QUEUE_INTERVAL_MS: v.optional(integer(1, 600_000), '100'),
  PLATEN_CORE_WEIGHT: v.optional(integer(1, 1000), '1'),
  PLATEN_PRO_WEIGHT: v.optional(integer(1, 1000), '1'),
  PLATEN_ENTERPRISE_WEIGHT: v.optional(integer(1, 1000), '1'),
  PLATEN_TIMEOUT_MS: v.optional(integer(100, 3_600_000), '60000'),
  PLATEN_PGVECTOR_MAX_POOLS: v.optional(integer(1, 10_000), '16'),
  PLATEN_PGVECTOR_POOL_SIZE: v.optional(integer(1, 100), '4'),
  PLATEN_PGVECTOR_IDLE_MS: v.optional(integer(100, 3_600_000), '30000'),
  // At most 8 s: uWS closes a silent connection itself 8 to 12 s after its last byte (its 10 s idle
  // timeout on a 4 s tick), unanswered, so a longer body timeout would never fire.
  PLATEN_BODY_TIMEOUT_MS: v.optional(integer(100, 8000), '5000'),
  // 16 KiB/s (128 kbit/s) is below the uplink of any mobile network still in service, yet a client must send
  // a body cap's worth (64 MiB) within 68 minutes to keep holding it in the body budget. 0: no minimum
  // (behind a proxy that buffers whole bodies before forwarding them, e.g. nginx's default).
  PLATEN_BODY_MIN_RATE: v.optional(integer(0, 1_000_000_000), '16384'),
  PLATEN_WORKER_MEMORY_MB: v.optional(integer(64, 65_536), '512'),
  // uWS frames a Content-Length of at most nine digits (src/http/uws-limits.ts).
  // No default here: whether it was set decides the tier limits' default (bodyLimits).
  PLATEN_MAX_BODY_BYTES: v.optional(integer(1024, 999_999_999)),
  PLATEN_MAX_BODY_BYTES_CORE: v.optional(integer(1024, 999_999_999)),
  PLATEN_MAX_BODY_BYTES_PRO: v.optional(integer(1024, 999_999_999)),
  PLATEN_MAX_BODY_BYTES_ENTERPRISE: v.optional(integer(1024, 999_999_999)),
  // No default here: it follows the body limits (bodyBudget).
  PLATEN_BODY_BUDGET_BYTES: v.optional(integer(1024, 2 ** 46)),
  PLATEN_CORS_ORIGINS: v.optional(list, ''),
  PLATEN_LOG_LEVEL: v.optional(
    v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'must be a pino level'),
    'info',
  ),
  PLATEN_ERRORS_BASE: v.optional(v.pipe(v.string(), v.url('must be an absolute URL')), 'https://platen.dev/errors'),
  PLATEN_CORE_RPM: v.optional(integer(1, 10_000_000), '600'),
  PLATEN_PRO_RPM: v.optional(integer(1, 10_000_000), '1000'),
  PLATEN_ENTERPRISE_RPM: v.optional(integer(1, 10_000_000), '10000'),
  PLATEN_IP_RPM: v.optional(integer(1, 10_000_000), '100000'),
  PLATEN_AUTH_FAILURES_PER_MIN: v.optional(integer(1, 1_000_000), '30'),
  PLATEN_SHUTDOWN_GRACE_MS: v.optional(integer(0, 600_000), '10000'),
  PLATEN_MAX_PAGES: v.optional(integer(1, 1_000_000), '2000'),
  PLATEN_READ_WORK_BUDGET: v.optional(integer(1_000, 2 ** 31), '20000000'),
  PLATEN_DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data'),
  PLATEN_JOB_RETENTION_S: v.optional(integer(1, 365 * 24 * 3600), String(24 * 3600)),
  PLATEN_JOB_CONCURRENCY: v.optional(integer(1, 256)),
  PLATEN_JOB_TIMEOUT_MS: v.optional(integer(100, 24 * 3_600_000), '600000'),
  PLATEN_SESSIONS_ENABLED: v.optional(boolean, 'false'),
  PLATEN_SESSION_IDLE_S: v.optional(integer(1, 7 * 24 * 3600), '900'),
  PLATEN_MAX_SESSIONS: v.optional(integer(1, 100_000), '10'),
  PLATEN_SESSION_MAX_OPERATIONS: v.optional(integer(1, 100_000), '10000'),
  PLATEN_REDIS_URL: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL'))),
  PLATEN_REDIS_TIMEOUT_MS: v.optional(integer(50, 60_000), '500'),
  PLATEN_REDIS_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ -')), 'platen'),
  PLATEN_CLUSTER_ID: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 . _ -')), 'platen'),
  PLATEN_NODE_ID: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 . _ -'))),
  PLATEN_JOB_LOCK_MS: v.optional(integer(1_000, 3_600_000), '30000'),
  PLATEN_APPROVAL_REQUIRED: v.optional(list, ''),
  PLATEN_APPROVAL_TTL_S: v.optional(integer(60, 30 * 24 * 3600), String(24 * 3600)),
  PLATEN_MAX_FONT_BYTES: v.optional(integer(1024, 2 ** 31), String(50 * 1024 * 1024)),
  PLATEN_FONTS_MAX_CORE: v.optional(integer(0, 100_000), '5'),
  PLATEN_FONTS_MAX: v.optional(integer(0, 100_000), '100'),
  PLATEN_FONTS_MAX_CLIENT_BYTES: v.optional(integer(1024, 2 ** 40), String(256 * 1024 * 1024)),
  PLATEN_MAX_IMAGE_PIXELS: v.optional(integer(1, 2 ** 32), String(100_000_000)),
  // sun_path holds 108 bytes on Linux, the terminating NUL included (unix(7)).
  PLATEN_SOCKET: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.check((path) => Buffer.byteLength(path) <= 107, 'must be at most 107 bytes (the limit of a Unix socket path)'),
    ),
  ),
  PLATEN_MAX_IMAGE_BYTES: v.optional(integer(1024, 2 ** 31), String(32 * 1024 * 1024)),
  PLATEN_METRICS_ENABLED: v.optional(boolean, 'false'),
  PLATEN_HIGH_CONTROL: v.optional(boolean, 'false'),
  PLATEN_TENANT_RPM: v.optional(integer(1, 10_000_000)),
  PLATEN_EMBEDDINGS_URL: v.optional(v.pipe(v.string(), v.trim(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be an http:// or https:// URL'))),
  PLATEN_EMBEDDINGS_API_KEY: v.optional(v.string()),
  PLATEN_SIGNING_P12_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  PLATEN_SIGNING_P12_PASSWORD: v.optional(v.string()),
  PLATEN_ATTESTATION_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  PLATEN_EMBEDDINGS_MODELS: v.optional(list, ''),
  PLATEN_EMBEDDINGS_TIMEOUT_MS: v.optional(integer(100, 600_000), '30000'),
  PLATEN_EMBEDDINGS_BATCH: v.optional(integer(1, 2048), '64'),
  PLATEN_EMBED_MAX_INPUTS: v.optional(integer(1, 100_000), '2048'),
  PLATEN_VECTOR_STORE_ALLOW: v.optional(
    v.pipe(
      list,
      v.check((items) => items.every((item) => /^[A-Za-z0-9.:_-]+(\/[0-9]{1,3})?$/.test(item)), 'must be comma-separated host names, IP addresses or CIDR ranges'),
    ),
    '',
  ),
  PLATEN_VECTOR_STORE_KEY: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64 (openssl rand -base64 32)'))),
  PLATEN_VECTOR_INDEX_MIN_ROWS: v.optional(integer(1, 100_000_000), '10000'),
});

type Env = v.InferOutput<typeof EnvSchema>;

/** Every variable this version reads (the README documents each; a test checks it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.entries);

/** The deployment's OpenAI-compatible embeddings provider (PLATEN_EMBEDDINGS_*). */
export interface EmbeddingsProviderConfig {
  /** Base URL of the API; requests go to `<url>/embeddings`. */
  readonly url: URL;
  readonly apiKey: string | undefined;
  /** The models clients may name. */
  readonly models: readonly string[];
  readonly timeoutMs: number;
  /** Inputs per request to the provider. */
  readonly batchSize: number;
  /** The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, either case), as the client library reads them. */
  readonly proxyEnv: Readonly<Record<string, string | undefined>>;
}

export interface Config {
  readonly version: string;
  readonly host: string;
  readonly port: number;
  readonly edition: Tier;
  readonly apiKeys: string | undefined;
  readonly apiKeysFile: string | undefined;
  readonly apiKeysReloadMs: number;
  readonly workers: number;
  readonly maxQueue: number;
  /** Once the queue is standing, a task is admitted only if its expected wait is within this (CoDel's target). */
  readonly queueTargetMs: number;
  /** Waits above the target for this long mean the queue is standing (CoDel's interval). */
  readonly queueIntervalMs: number;
  /** Each tier's share of the pool and of the job runner when clients contend; a key's `weight` overrides it. */
  readonly weightByTier: Readonly<Record<Tier, number>>;
  readonly timeoutMs: number;
  readonly workerMemoryMb: number;
  readonly maxBodyBytes: number;
  readonly corsOrigins: readonly string[];
  readonly logLevel: string;
  readonly errorsBase: string;
  readonly rpmByTier: Readonly<Record<Tier, number>>;
  /**
   * The tier-payload limit: the largest body a key of each tier may send,
   * checked once the key is known (the pipeline's step after
   * authentication), on the declared length and as bytes arrive.
   */
  readonly maxBodyBytesByTier: Readonly<Record<Tier, number>>;
  /** The largest of them: what a request may declare before its key is known. */
  readonly maxBodyBytesAnyTier: number;
  /** Request-body bytes held at once by the whole process; past it: 503 upload-budget-exhausted (src/http/body-budget.ts). */
  readonly bodyBudgetBytes: number;
  readonly ipRpm: number;
  readonly authFailuresPerMinute: number;
  readonly shutdownGraceMs: number;
  /** pgvector connection pools: how many are kept, their connections, and how long an idle connection stays open. */
  readonly pgvectorPools: { readonly maxPools: number; readonly poolSize: number; readonly idleMs: number };
  /** Longest silence while a request body is still arriving; past it 408 body-timeout (PLATEN_BODY_TIMEOUT_MS). */
  readonly bodyTimeoutMs: number;
  /**
   * Bytes per second a request body must average once bodyTimeoutMs has passed; past it 408 body-timeout
   * (PLATEN_BODY_MIN_RATE); 0: none.
   */
  readonly bodyMinRate: number;
  /** Pages one render may produce: a work budget, so a small request cannot hold a worker until the timeout. */
  readonly maxPages: number;
  /** Drawing operators plus text runs one PDF-reading request may read (PLATEN_READ_WORK_BUDGET). */
  readonly readWorkBudget: number;
  /** The deployment's signing identity for POST /api/v1/sign (PLATEN_SIGNING_P12_FILE, a PKCS#12 file). */
  readonly signingP12File?: string;
  readonly signingP12Password?: string;
  /** The Ed25519 key that signs ai-certify certificates (PLATEN_ATTESTATION_KEY_FILE, PKCS#8 PEM); without it, one generated in dataDir. */
  readonly attestationKeyFile?: string;
  /** Where the embedded mode keeps job records, request bodies and results. */
  readonly dataDir: string;
  readonly jobRetentionMs: number;
  /** Jobs handed to the pool at once (as background tasks, which never take a thread a synchronous task waits for). */
  readonly jobConcurrency: number;
  readonly jobTimeoutMs: number;
  readonly sessionsEnabled: boolean;
  /** A session idle this long expires; expired and rendered sessions are removed after as long again. */
  readonly sessionIdleMs: number;
  /** Active sessions per client unless its key says otherwise (attribute `sessions`). */
  readonly maxSessions: number;
  readonly sessionMaxOperations: number;
  /** Multi-node mode: state in this Redis (redis:// or rediss:// URL; credentials never logged). */
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** Longest a Redis PING or small command may take; a PING past it marks Redis hung (503 store-unavailable, not ready). */
  readonly redisTimeoutMs: number;
  readonly clusterId: string;
  readonly nodeId: string;
  /** Multi-node mode: how long a running job stays claimed by a node that stopped renewing it. */
  readonly jobLockMs: number;
  /** Route operations (render, jobs, ...) that run only with a person's approval. */
  readonly approvalRequired: readonly string[];
  readonly approvalTtlMs: number;
  /** Decoded font bytes /v1/font/subset accepts (413 font-too-large past it). */
  readonly maxFontBytes: number;
  /** Registered fonts (PUT /api/v1/fonts/{family}): how many a client may keep, by its tier, and their total bytes. */
  readonly fontLimits: { readonly countByTier: Readonly<Record<'core' | 'pro' | 'enterprise', number>>; readonly clientBytes: number };
  /** Remote embedding models for /v1/rag/embed; undefined when none is configured. */
  readonly embeddings: EmbeddingsProviderConfig | undefined;
  /** Inputs one /v1/rag/embed request may carry (PLATEN_EMBED_MAX_INPUTS). */
  readonly embedMaxInputs: number;
  /** Hosts and CIDR ranges a pgvector endpoint may be at although they are private, loopback or link-local (PLATEN_VECTOR_STORE_ALLOW). */
  readonly vectorStoreAllow: readonly string[];
  /** AES-256-GCM key that seals remembered pgvector connections in Redis (PLATEN_VECTOR_STORE_KEY); without it they stay in each node's memory. */
  readonly vectorStoreKey: Buffer | undefined;
  /** Rows at which an embedded collection gets its approximate (HNSW) index. */
  readonly vectorIndexMinRows: number;
  /** Pixels (width × height) of an input image the accelerator decodes (413 image-too-large past it). */
  readonly maxImagePixels: number;
  /** Sidecar mode: also listen on this Unix socket; its requests are local (no rate limits). */
  readonly socketPath: string | undefined;
  /** Decoded bytes of an image /v1/image/compress accepts (413 image-too-large past it). */
  readonly maxImageBytes: number;
  /** Registers GET /metrics and records per-request figures for it. */
  readonly metricsEnabled: boolean;
  /** High-control mode: every authenticated request names its tenant (X-Tenant-ID), which must be its key's. */
  readonly highControl: boolean;
  /** Requests per minute per tenant in high-control mode; defaults to the enterprise rate. */
  readonly tenantRpm: number;
}

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
