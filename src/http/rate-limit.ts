// Per-IP, per-client and (in high-control mode) per-tenant rate limits on rate-limiter-flexible (a well-kept
// library with memory and Redis stores behind one interface). Windows are
// one minute; quotas are requests per minute. In the multi-node mode the
// counters live in Redis, so a client's quota holds across every node; while
// Redis is unreachable each node counts in memory instead (the library's
// insurance limiter), so limits keep working and no request waits on Redis.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Principal } from '../auth/key-store.js';
import type { Tier } from '../auth/tiers.js';
import { addressKey } from './client-address.js';

export interface RateLimitOptions {
  readonly ipRpm: number;
  readonly rpmByTier: Readonly<Record<Tier, number>>;
  /** Failed authentications per minute per address before 429 (OWASP API2: stricter limits on authentication). */
  readonly authFailuresPerMinute: number;
  /** Multi-node mode: an ioredis client and the key prefix to count under. */
  readonly redis?: { readonly client: unknown; readonly prefix: string };
  /** Requests per minute per tenant in high-control mode (PLATEN_TENANT_RPM). */
  readonly tenantRpm: number;
}

export type LimitScope = 'ip' | 'client' | 'auth' | 'tenant';

export type LimitVerdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number; readonly scope: LimitScope };

const WINDOW_SECONDS = 60;

export class RateLimits {
  readonly #ip: RateLimiterAbstract;
  readonly #authFailures: RateLimiterAbstract;
  readonly #tenants: RateLimiterAbstract;
  /** One limiter per distinct quota: a key's `rpm` attribute may differ from its tier's default. */
  readonly #byQuota = new Map<number, RateLimiterAbstract>();

  constructor(private readonly options: RateLimitOptions) {
    this.#ip = this.#limiter(options.ipRpm, 'ip');
    this.#authFailures = this.#limiter(options.authFailuresPerMinute, 'auth');
    this.#tenants = this.#limiter(options.tenantRpm, 'tenant');
  }

  /** Counts one request against an address (an IPv6 /64 counts as one). */
  ip(address: string): Promise<LimitVerdict> {
    return consume(this.#ip, addressKey(address), 'ip');
  }

  /** Counts one failed authentication against an address. */
  authFailure(address: string): Promise<LimitVerdict> {
    return consume(this.#authFailures, addressKey(address), 'auth');
  }

  /** Counts one request against the client; keys sharing a label share the quota. */
  client(principal: Principal): Promise<LimitVerdict> {
    const quota = principal.rpm ?? this.options.rpmByTier[principal.tier];
    let limiter = this.#byQuota.get(quota);
    if (limiter === undefined) {
      limiter = this.#limiter(quota, `client-${quota}`);
      this.#byQuota.set(quota, limiter);
    }
    return consume(limiter, principal.label, 'client');
  }

  /** Counts one request against a tenant: every key of the tenant shares it, and no other tenant's bucket moves. */
  tenant(tenant: string): Promise<LimitVerdict> {
    return consume(this.#tenants, tenant, 'tenant');
  }

  #limiter(points: number, keyPrefix: string): RateLimiterAbstract {
    const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
    const { redis } = this.options;
    if (redis === undefined) return memory;
    return new RateLimiterRedis({
      storeClient: redis.client,
      points,
      duration: WINDOW_SECONDS,
      keyPrefix: `${redis.prefix}:${keyPrefix}`,
      insuranceLimiter: memory,
      // Redis commands fail fast while it is down (no offline queue); this bounds a slow one.
      timeoutMs: 500,
    } as ConstructorParameters<typeof RateLimiterRedis>[0]);
  }
}

async function consume(limiter: RateLimiterAbstract, key: string, scope: LimitScope): Promise<LimitVerdict> {
  try {
    await limiter.consume(key);
    return { allowed: true };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, scope, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
    throw rejection;
  }
}
