// When a task handed to Piscina is on a worker thread. The scheduler hands a
// task over when it counts a thread free, but a thread stopped at the
// timeout (or crashed) is replaced by a new one that first loads the task
// modules, and Piscina keeps the task in its queue meanwhile: on a machine at
// load ~25 that start-up took seconds, and counted against the follow-up
// task's processing timeout (test/pool-faults.test.ts's runaway test failed
// so). The pool starts a task's processing timeout when this says the task
// is on a thread. Piscina emits 'workerCreate' once a thread is ready (its
// modules loaded) and 'workerDestroy' when one is gone; it gives its queue to
// free ready threads first in, first out, which is the order kept here.
import type { EventEmitter } from 'node:events';

/** A task handed to Piscina; `onThread` runs once it is counted on a thread. */
export interface Placement {
  placed: boolean;
  readonly onThread: () => void;
}

export class ThreadReadiness {
  #ready = 0;
  #onThreads = 0;
  readonly #waiting: Placement[] = [];

  constructor(
    private readonly threads: number,
    pool: EventEmitter,
  ) {
    pool.on('workerCreate', () => {
      this.#ready += 1;
      this.#place();
    });
    pool.on('workerDestroy', () => {
      this.#ready -= 1;
    });
  }

  /** Threads being started or replaced (not yet ready for a task). */
  get starting(): number {
    return Math.max(0, this.threads - this.#ready);
  }

  /** A task was handed to Piscina: it is on a thread now if a ready one is free, else when one is. */
  handed(onThread: () => void): Placement {
    const placement: Placement = { placed: false, onThread };
    this.#waiting.push(placement);
    this.#place();
    return placement;
  }

  /** The task ended (answered, failed, aborted or timed out), on a thread or still in Piscina's queue. */
  ended(placement: Placement): void {
    if (placement.placed) {
      this.#onThreads -= 1;
      this.#place();
      return;
    }
    const index = this.#waiting.indexOf(placement);
    if (index >= 0) this.#waiting.splice(index, 1);
  }

  #place(): void {
    while (this.#onThreads < this.#ready && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as Placement;
      next.placed = true;
      this.#onThreads += 1;
      next.onThread();
    }
  }
}
