// That a request's client went away, as every request's hot path listens
// for it: the body reader and the pool each add a listener, the pool removes
// its own. An AbortController per request cost ~5.5 µs of main-thread CPU a
// request for that (its lazily made AbortSignal, an EventTarget, and
// add/removeEventListener; 0.1 µs this way, a loop of 300,000 here), and a
// `perf` profile of the server rendering the letter put 5.7% of the main
// thread's samples in it. The few consumers that need a real AbortSignal
// (fetch, timers) read `signal`, which is made on first use.
import type { CallerSignal } from '../pool/pool.js';

export class ClientSignal implements CallerSignal {
  #aborted = false;
  /** Usually one or two: the body reader's and the pool's. */
  #listeners: Array<() => void> | undefined;
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Every listener runs once, as with `{ once: true }`; one added after the abort never runs (as on an AbortSignal). */
  addEventListener(_type: 'abort', listener: () => void, _options?: { readonly once?: boolean }): void {
    if (this.#aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at !== -1) listeners.splice(at, 1);
  }

  /** An AbortSignal that fires with this one, for APIs that take nothing else. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    this.#controller?.abort();
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
