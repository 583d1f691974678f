// Per-IP, per-client and (in high-control mode) per-tenant rate limits on rate-limiter-flexible (a well-kept
// library with memory and Redis stores behind one interface). Windows are
// one minute; quotas are requests per minute. In the multi-node mode the
// counters live in Redis, so a client's quota holds across every node; while
// Redis is unreachable or hung each node counts in memory instead, so limits
// keep working and no request waits on Redis: a counter that fails, or does
// not answer within PLATEN_REDIS_TIMEOUT_MS or by the time the connection's
// PING finds Redis hung, counts in memory, and so does every request after it
// until Redis answers PINGs again (src/store/redis/connection.ts). Measured
// before: with Redis stopped by SIGSTOP every keyed request waited 4 s here.
//
// Counting in memory is synchronous (window-counter.ts): a verdict is a value
// when no Redis is configured or it is out, and a promise only while Redis
// counts. The pipeline awaits only the latter.
//
// rate-limiter-flexible is loaded only in the multi-node mode (RateLimits.open):
// counting in memory needs none of it, and it costs a server that has no Redis
// ~35 ms of CPU and ~2 MB of heap at start-up (measured: import alone, Node 20).
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Principal } from '../auth/key-store.js';
import type { Tier } from '../auth/tiers.js';
import { addressKey } from './client-address.js';
import { WindowCounter } from './window-counter.js';

/** What the limiters need of the Redis connection (src/store/redis/connection.ts), without importing the store layer. */
export interface SharedCounterStore {
  /** The ioredis client the counters live in. */
  readonly client: unknown;
  /** Connected and answering in time; otherwise requests count in memory at once. */
  readonly up: boolean;
  /** Waits for `work` no longer than Redis's timeout or its stall; whatever `work` rejects with passes through. */
  bounded<T>(work: () => Promise<T>): Promise<T>;
}

export interface RateLimitOptions {
  readonly ipRpm: number;
  readonly rpmByTier: Readonly<Record<Tier, number>>;
  /** Failed authentications per minute per address before 429 (OWASP API2: stricter limits on authentication). */
  readonly authFailuresPerMinute: number;
  /** Multi-node mode: the Redis connection and the key prefix to count under (RateLimits.open loads the Redis counters for it). */
  readonly redis?: { readonly connection: SharedCounterStore; readonly prefix: string };
  /** Requests per minute per tenant in high-control mode (PLATEN_TENANT_RPM). */
  readonly tenantRpm: number;
}

export type LimitScope = 'ip' | 'client' | 'auth' | 'tenant';

export type LimitVerdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number; readonly scope: LimitScope };

/** A verdict now (counted in memory) or once Redis has counted. */
export type PendingVerdict = LimitVerdict | Promise<LimitVerdict>;

/** The one allowed verdict: nothing to allocate for the common answer. */
export const ALLOWED: LimitVerdict = Object.freeze({ allowed: true });

/** One quota: counted in Redis in the multi-node mode, in memory otherwise and whenever Redis cannot answer. */
interface Limiter {
  readonly shared: SharedLimiter | undefined;
  readonly memory: WindowCounter;
}

/** A quota's Redis counter, and the class of its refusals (the library is loaded at run time). */
interface SharedLimiter {
  readonly counter: RateLimiterAbstract;
  readonly refusal: typeof RateLimiterRes;
}

type CounterLibrary = typeof import('rate-limiter-flexible');

const WINDOW_SECONDS = 60;

export class RateLimits {
  readonly #ip: Limiter;
  readonly #authFailures: Limiter;
  readonly #tenants: Limiter;
  /** One limiter per distinct quota: a key's `rpm` attribute may differ from its tier's default. */
  readonly #byQuota = new Map<number, Limiter>();
  /** The Redis counters' library, loaded only when there is a Redis to count in. */
  readonly #library: CounterLibrary | undefined;

  /** The limits of `options`, with the Redis counters' library loaded first when they count in Redis. */
  static async open(options: RateLimitOptions): Promise<RateLimits> {
    return new RateLimits(options, options.redis === undefined ? undefined : await import('rate-limiter-flexible'));
  }

  private constructor(
    private readonly options: RateLimitOptions,
    library: CounterLibrary | undefined,
  ) {
    this.#library = library;
    this.#ip = this.#limiter(options.ipRpm, 'ip');
    this.#authFailures = this.#limiter(options.authFailuresPerMinute, 'auth');
    this.#tenants = this.#limiter(options.tenantRpm, 'tenant');
  }

  /** Counts one request against an address (an IPv6 /64 counts as one). */
  ip(address: string): PendingVerdict {
    return this.#consume(this.#ip, addressKey(address), 'ip');
  }

  /** Counts one failed authentication against an address. */
  authFailure(address: string): PendingVerdict {
    return this.#consume(this.#authFailures, addressKey(address), 'auth');
  }

  /** Counts one request against the client; keys sharing a label share the quota. */
  client(principal: Principal): PendingVerdict {
    const quota = principal.rpm ?? this.options.rpmByTier[principal.tier];
    let limiter = this.#byQuota.get(quota);
    if (limiter === undefined) {
      limiter = this.#limiter(quota, `client-${quota}`);
      this.#byQuota.set(quota, limiter);
    }
    return this.#consume(limiter, principal.label, 'client');
  }

  /** Counts one request against a tenant: every key of the tenant shares it, and no other tenant's bucket moves. */
  tenant(tenant: string): PendingVerdict {
    return this.#consume(this.#tenants, tenant, 'tenant');
  }

  #limiter(points: number, keyPrefix: string): Limiter {
    const memory = new WindowCounter(points, WINDOW_SECONDS * 1000);
    const { redis } = this.options;
    const library = this.#library;
    if (redis === undefined || library === undefined) return { shared: undefined, memory };
    const counter = new library.RateLimiterRedis({ storeClient: redis.connection.client, points, duration: WINDOW_SECONDS, keyPrefix: `${redis.prefix}:${keyPrefix}` });
    return { shared: { counter, refusal: library.RateLimiterRes }, memory };
  }

  #consume(limiter: Limiter, key: string, scope: LimitScope): PendingVerdict {
    const store = this.options.redis?.connection;
    const { shared } = limiter;
    if (shared !== undefined && store !== undefined && store.up) return consumeShared(store, shared, limiter.memory, key, scope);
    return counted(limiter.memory, key, scope);
  }
}

function counted(memory: WindowCounter, key: string, scope: LimitScope): LimitVerdict {
  const waitMs = memory.consume(key);
  return waitMs === 0 ? ALLOWED : refused(waitMs, scope);
}

function refused(waitMs: number, scope: LimitScope): LimitVerdict {
  return { allowed: false, scope, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

async function consumeShared(store: SharedCounterStore, shared: SharedLimiter, memory: WindowCounter, key: string, scope: LimitScope): Promise<LimitVerdict> {
  try {
    return await verdict(store.bounded(() => shared.counter.consume(key)), scope, shared.refusal);
  } catch {
    // Redis failed or did not answer in time: this request counts in memory, as the next ones will while Redis is out.
    return counted(memory, key, scope);
  }
}

/** A consumption's outcome: allowed, or refused with the wait; anything else (Redis failing) is thrown. */
async function verdict(consumption: Promise<unknown>, scope: LimitScope, refusal: typeof RateLimiterRes): Promise<LimitVerdict> {
  try {
    await consumption;
    return ALLOWED;
  } catch (rejection) {
    if (rejection instanceof refusal) return refused(rejection.msBeforeNext, scope);
    throw rejection;
  }
}
