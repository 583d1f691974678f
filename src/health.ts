// What the probes report, gathered in one place from the pool, the key
// store and the server's lifecycle.
import type { KeyStore } from './auth/key-store.js';
import type { Tier } from './auth/tiers.js';
import type { Lifecycle } from './http/lifecycle.js';
import type { BreakerState } from './pool/circuit-breaker.js';
import type { WorkerPool } from './pool/pool.js';

export interface HealthRecord {
  status: 'ok' | 'degraded';
  version: string;
  tier: Tier;
  /** standalone: one process with embedded stores; cluster: state in Redis, shared by every node. */
  mode: 'standalone' | 'cluster';
  workers: { total: number; busy: number; idle: number };
  uptime_seconds: number;
  circuit_breaker: BreakerState;
}

export class Health {
  readonly #startedAt = Date.now();

  constructor(
    private readonly pool: WorkerPool,
    private readonly keys: KeyStore,
    private readonly lifecycle: Lifecycle,
    private readonly version: string,
    private readonly edition: Tier,
    private readonly mode: HealthRecord['mode'],
    /** The multi-node mode's Redis: while it is unreachable this node is not ready. */
    private readonly redis: { readonly up: boolean } | undefined,
  ) {}

  get breaker(): BreakerState {
    return this.pool.stats.breaker;
  }

  readiness(): Record<string, boolean> {
    return {
      pool: this.pool.stats.breaker !== 'open',
      keys: this.keys.ready,
      accepting: !this.lifecycle.draining,
      ...(this.redis === undefined ? {} : { redis: this.redis.up }),
    };
  }

  record(): HealthRecord {
    const stats = this.pool.stats;
    return {
      status: stats.breaker === 'closed' && !this.lifecycle.draining ? 'ok' : 'degraded',
      version: this.version,
      tier: this.edition,
      mode: this.mode,
      workers: { total: stats.total, busy: stats.busy, idle: stats.idle },
      uptime_seconds: Math.floor((Date.now() - this.#startedAt) / 1000),
      circuit_breaker: stats.breaker,
    };
  }
}
