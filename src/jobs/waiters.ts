// Long polls of GET /api/v1/jobs/{id}?wait=N (issue 14: make polling
// cheap). A poll that may wait parks here until its job settles, its wait
// runs out, its client leaves, or the server starts draining; one answer
// then replaces the dozens of quick polls a client would otherwise make.
export class JobWaiters {
  readonly #waiting = new Map<string, Set<() => void>>();
  #released = false;

  /** Resolves when `notify(id)` is called, after `timeoutMs`, when `signal` fires, or at `releaseAll`. */
  wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#released || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let set = this.#waiting.get(id);
      if (set === undefined) this.#waiting.set(id, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.#waiting.get(id) === set) this.#waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** The job changed state (finished, cancelled): wake its waiting polls. */
  notify(id: string): void {
    for (const done of [...(this.#waiting.get(id) ?? [])]) done();
  }

  /** The server is draining: answer every waiting poll now, and wait no more. */
  releaseAll(): void {
    this.#released = true;
    for (const set of [...this.#waiting.values()]) for (const done of [...set]) done();
  }
}
