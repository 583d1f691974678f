// A circuit breaker over worker crashes (tasks that threw, workers that
// exited), never over what a client's own input causes (invalid data,
// timeouts, running out of memory). After `threshold` consecutive faults it opens
// and fast-fails for `cooldownMs`; then it lets one probe task through
// (half_open): success closes it, a fault opens it again. This keeps a
// poisoned deployment (e.g. a worker that dies on start) from burning every
// request's full timeout.
export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  readonly threshold: number;
  readonly cooldownMs: number;
  readonly now?: () => number;
}

export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #faults = 0;
  #openedAt = 0;
  #probing = false;
  readonly #now: () => number;

  constructor(private readonly options: BreakerOptions) {
    this.#now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.#state === 'open' && this.#now() - this.#openedAt >= this.options.cooldownMs) this.#state = 'half_open';
    return this.#state;
  }

  /** Seconds until the breaker lets a probe through (for Retry-After). */
  get retryAfterSeconds(): number {
    const left = this.options.cooldownMs - (this.#now() - this.#openedAt);
    return Math.max(1, Math.ceil(left / 1000));
  }

  /** May a task start now? In half_open exactly one probe is let through at a time. */
  admit(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#probing) return false;
    this.#probing = true;
    return true;
  }

  success(): void {
    this.#probing = false;
    this.#faults = 0;
    this.#state = 'closed';
  }

  /** A crash. `duringTask: false` is a worker dying between tasks: it must not end a probe still running. */
  fault({ duringTask = true }: { duringTask?: boolean } = {}): void {
    if (duringTask) this.#probing = false;
    this.#faults += 1;
    if (this.#state === 'half_open' || this.#faults >= this.options.threshold) {
      this.#state = 'open';
      this.#openedAt = this.#now();
    }
  }

  /** A task that ended without telling us anything about worker health (e.g. the client left). */
  release(): void {
    this.#probing = false;
  }
}
