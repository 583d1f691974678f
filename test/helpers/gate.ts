// An Atomics gate shared with the fault worker (test/fixtures/fault-worker.ts):
// tasks with `"fault": "block"` count themselves in slot 1 and wait on slot 0
// until the test opens it. Deterministic, never a sleep.
export interface Gate {
  readonly workerData: { readonly gate: SharedArrayBuffer };
  /** Resolves once `count` tasks are blocked at the gate. */
  blocked(count: number): Promise<void>;
  open(): void;
}

export function gate(): Gate {
  const buffer = new SharedArrayBuffer(8);
  const view = new Int32Array(buffer);
  return {
    workerData: { gate: buffer },
    async blocked(count: number): Promise<void> {
      // Atomics.waitAsync does not keep the event loop alive; this timer does, while we wait.
      const keepAlive = setInterval(() => undefined, 1_000);
      try {
        while (Atomics.load(view, 1) < count) {
          const result = Atomics.waitAsync(view, 1, Atomics.load(view, 1), 5_000);
          if (result.async) await result.value;
        }
      } finally {
        clearInterval(keepAlive);
      }
    },
    open(): void {
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
    },
  };
}
