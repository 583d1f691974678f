// Requests per key in fixed windows, counted in this process: the in-memory
// side of the rate limits (rate-limit.ts), and their fallback while Redis
// cannot answer. It counts exactly as rate-limiter-flexible's
// RateLimiterMemory did here (MemoryStorage.incrby: a key's window opens at
// its first request and lasts the duration; past `points` in it, refused
// until it ends), but synchronously: the library's consume() is a Promise
// per call, and with our two awaits around each of the two limits a
// request made four promises and seven microtask turns to count itself, ~2.9
// KB of the main thread's 22 KB of allocation per letter render (a sampling
// heap profile including collected objects, issue 14). Redis counting stays
// on the library, which does it atomically across nodes.
//
// Expired keys are swept at most once a window, on a request, rather than
// by a timer per key as MemoryStorage does: a key lives at most two windows.

interface Window {
  count: number;
  /** Milliseconds (the counter's clock) at which the window closes. */
  endsAt: number;
}

export class WindowCounter {
  readonly #windows = new Map<string, Window>();
  #sweepAt: number;

  constructor(
    /** Requests allowed per key and window. */
    private readonly points: number,
    private readonly windowMs: number,
    /** Milliseconds; tests pass their own. */
    private readonly now: () => number = Date.now,
  ) {
    this.#sweepAt = now() + windowMs;
  }

  /** Counts one request of `key`: 0 when allowed, else the milliseconds until its window ends. */
  consume(key: string): number {
    const now = this.now();
    if (now >= this.#sweepAt) this.#sweep(now);
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return window.count > this.points ? window.endsAt - now : 0;
  }

  /** Keys with an open window (for tests: the sweep bounds it). */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    this.#sweepAt = now + this.windowMs;
  }
}
