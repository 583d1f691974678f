// Tracks requests in flight so that shutdown can wait for them, and whether
// the server is draining (readiness false, new requests refused with 503).
export class Lifecycle {
  #draining = false;
  #inFlight = 0;
  #waiters: Array<() => void> = [];

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  enter(): void {
    this.#inFlight += 1;
  }

  leave(): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  startDraining(): void {
    this.#draining = true;
  }

  /** Resolves true when no request is in flight, false when `graceMs` passes first. */
  drained(graceMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
