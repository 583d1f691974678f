// What the pool hands Piscina to stop one task (its `signal` option): an
// emitter of a single 'abort' listener. Piscina accepts one with once() and
// removeListener() as well as an AbortSignal (piscina dist/abort.js,
// onabort). An AbortController per task cost ~3.7 KB of main-thread
// allocation per request (a sampling heap profile of the server rendering
// the letter: the AbortSignal 2 KB, its EventTarget's listener Map 0.8 KB,
// addEventListener 0.85 KB), of ~33 KB in all, for a listener that fires
// only on a timeout or a client that left.
export class TaskAbort {
  aborted = false;
  #listener: (() => void) | undefined;

  once(_event: 'abort', listener: () => void): void {
    this.#listener = listener;
  }

  removeListener(_event: 'abort', listener: () => void): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  /** Piscina's typing names the removal off(); its code calls removeListener(). */
  off(event: 'abort', listener: () => void): void {
    this.removeListener(event, listener);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
}
