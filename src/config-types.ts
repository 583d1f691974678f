// The typed configuration every module receives (frozen, built once by
// src/config.ts from the environment).
import type { Tier } from './auth/tiers.js';

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
  /**
   * Once the queue is standing, a task is admitted only if its expected wait is within this (CoDel's target);
   * undefined: derived from each task's service time (src/pool/queue-target.ts).
   */
  readonly queueTargetMs: number | undefined;
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
  /** Bytes one task's PDF streams and images may decode to (PLATEN_MAX_DECODED_BYTES); past it 422 pdf-limits-exceeded. */
  readonly maxDecodedBytes: number;
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
