// An Atomics gate shared with the fault worker (test/fixtures/fault-worker.ts):
// tasks with `"fault": "block"` count themselves in slot 1 and wait on slot 0
// until the test opens it. Deterministic, never a sleep.
export interface Gate {
  readonly workerData: { readonly gate: SharedArrayBuffer };
  /** Resolves once `count` tasks are blocked at the gate. */
  blocked(count: number): Promise<void>;
  open(): void;
  /** The second gate, for `"fault": "hold"` (slots 2 and 3): tasks that must stay blocked after the first one opened. */
  held(count: number): Promise<void>;
  release(): void;
}

export function gate(): Gate {
  const buffer = new SharedArrayBuffer(16);
  const view = new Int32Array(buffer);
  const waitFor = async (slot: number, count: number): Promise<void> => {
    // Atomics.waitAsync does not keep the event loop alive; this timer does, while we wait.
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      while (Atomics.load(view, slot) < count) {
        const result = Atomics.waitAsync(view, slot, Atomics.load(view, slot), 5_000);
        if (result.async) await result.value;
      }
    } finally {
      clearInterval(keepAlive);
    }
  };
  const opener = (slot: number) => () => {
    Atomics.store(view, slot, 1);
    Atomics.notify(view, slot);
  };
  return {
    workerData: { gate: buffer },
    blocked: (count) => waitFor(1, count),
    open: opener(0),
    held: (count) => waitFor(3, count),
    release: opener(2),
  };
}
