// Per-IP and per-client rate limits on rate-limiter-flexible (a well-kept
// library with memory and Redis stores behind one interface). Windows are
// one minute; quotas are requests per minute.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Principal } from '../auth/key-store.js';
import type { Tier } from '../auth/tiers.js';

export interface RateLimitOptions {
  readonly ipRpm: number;
  readonly rpmByTier: Readonly<Record<Tier, number>>;
}

export type LimitVerdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number; readonly scope: 'ip' | 'client' };

const WINDOW_SECONDS = 60;

export class RateLimits {
  readonly #ip: RateLimiterAbstract;
  /** One limiter per distinct quota: a key's `rpm` attribute may differ from its tier's default. */
  readonly #byQuota = new Map<number, RateLimiterAbstract>();

  constructor(private readonly options: RateLimitOptions) {
    this.#ip = this.#limiter(options.ipRpm, 'ip');
  }

  /** Counts one request (or one failed authentication) against an address. */
  ip(address: string): Promise<LimitVerdict> {
    return consume(this.#ip, address, 'ip');
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

  #limiter(points: number, keyPrefix: string): RateLimiterAbstract {
    return new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
  }
}

async function consume(limiter: RateLimiterAbstract, key: string, scope: 'ip' | 'client'): Promise<LimitVerdict> {
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
