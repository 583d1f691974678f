// What the environment may hold: one valibot schema of every PLATEN_*
// variable, with its range and default. src/config.ts validates the
// environment against it and builds the Config from the result; nothing
// else reads it.
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { TIERS } from './auth/tiers.js';

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

export const EnvSchema = v.object({
  PLATEN_HOST: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1)), '127.0.0.1'),
  PLATEN_PORT: v.optional(integer(0, 65535), '8080'),
  PLATEN_EDITION: v.optional(tier, 'enterprise'),
  PLATEN_API_KEYS: v.optional(v.string()),
  PLATEN_API_KEYS_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  PLATEN_API_KEYS_RELOAD_MS: v.optional(integer(50, 3_600_000), '1000'),
  PLATEN_WORKERS: v.optional(integer(1, 256), String(cores)),
  PLATEN_MAX_QUEUE: v.optional(integer(0, 100_000)),
  // No default: unset, the target is derived from each task's service time (src/pool/queue-target.ts).
  PLATEN_QUEUE_TARGET_MS: v.optional(integer(1, 600_000)),
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
  PLATEN_AUTH_FAILURES_PER_MIN: v.optional(integer(1, 1_000_000), '120'),
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
  // 1 GiB: OSS-Fuzz's MuPDF harness caps a document's allocations there (workers/untrusted/decoded-bytes.ts).
  PLATEN_MAX_DECODED_BYTES: v.optional(integer(1024 * 1024, 2 ** 40), String(1024 * 1024 * 1024)),
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

export type Env = v.InferOutput<typeof EnvSchema>;
