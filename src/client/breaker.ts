// The client's own circuit breaker: after `threshold` consecutive failed
// attempts (connection failures, timeouts, 5xx) calls fail at once for
// `cooldownMs`; then one probe call is let through (half-open) while the
// others still fail at once; its success closes the breaker, its failure
// opens it again. Any answer below 500 (a 4xx included) proves the service
// is up and resets the count: a client's own bad requests never open it.
// The states are named like the server's (`closed`, `open`, `half_open`).

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** Consecutive failed attempts that open the breaker. Default 5. */
  readonly threshold?: number;
  /** How long it stays open before a probe. Default 10000. */
  readonly cooldownMs?: number;
  /** The clock the cooldown is measured on, in ms. Default performance.now; tests step their own instead of waiting. */
  readonly now?: () => number;
}

/** What an admitted attempt reports back, exactly once. */
export interface Permit {
  /** The service answered (any status below 500). */
  succeeded(): void;
  /** Connection failure, timeout or 5xx. */
  failed(): void;
  /** The caller gave up; the attempt says nothing about the service. */
  released(): void;
}

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  constructor(options: BreakerOptions = {}, now: () => number = options.now ?? (() => performance.now())) {
    this.#threshold = options.threshold ?? 5;
    this.#cooldownMs = options.cooldownMs ?? 10_000;
    if (!Number.isInteger(this.#threshold) || this.#threshold < 1) throw new TypeError('breaker.threshold must be a whole number of at least 1');
    if (!Number.isFinite(this.#cooldownMs) || this.#cooldownMs < 0) throw new TypeError('breaker.cooldownMs must be a number of milliseconds, 0 or more');
    this.#now = now;
  }

  get state(): BreakerState {
    if (this.#openedAt === undefined) return 'closed';
    return this.#probing || this.#now() - this.#openedAt >= this.#cooldownMs ? 'half_open' : 'open';
  }

  /** Milliseconds until a probe is admitted; 0 when one would be (or is in flight). */
  get retryInMs(): number {
    if (this.#openedAt === undefined || this.#probing) return 0;
    return Math.max(0, Math.ceil(this.#openedAt + this.#cooldownMs - this.#now()));
  }

  /** A permit for one attempt, or undefined when the breaker refuses it. */
  admit(): Permit | undefined {
    const state = this.state;
    if (state === 'open' || (state === 'half_open' && this.#probing)) return undefined;
    const probe = state === 'half_open';
    if (probe) this.#probing = true;
    let settled = false;
    const settle = (outcome: 'success' | 'failure' | 'none') => {
      if (settled) return;
      settled = true;
      if (probe) this.#probing = false;
      if (outcome === 'success') {
        this.#failures = 0;
        this.#openedAt = undefined;
      } else if (outcome === 'failure') {
        this.#failures += 1;
        if (probe || this.#failures >= this.#threshold) this.#openedAt = this.#now();
      }
    };
    return { succeeded: () => settle('success'), failed: () => settle('failure'), released: () => settle('none') };
  }
}
