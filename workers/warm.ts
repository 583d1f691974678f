// The `warm` task: proves a worker has loaded every task module. The pool
// runs one per thread at start-up, before the server listens, so that the
// first requests do not pay module loading (which can exceed a short
// PLATEN_TIMEOUT_MS) and no thread is ever terminated mid-load (seen once
// as V8's "FATAL ERROR: v8::Module::IsGraphAsync").
//
// Each warm task waits at a barrier until all have arrived; since a thread
// runs one task at a time, `threads` tasks at the barrier are on `threads`
// different threads.
import { performance } from 'node:perf_hooks';
import type { Outcome, TaskInput, WarmOptions } from './protocol.js';

export async function warm(input: TaskInput<WarmOptions>): Promise<Outcome> {
  const started = performance.now();
  const { barrier, threads, timeoutMs } = input.options;
  const arrivals = new Int32Array(barrier);
  Atomics.add(arrivals, 0, 1);
  Atomics.notify(arrivals, 0);
  const deadline = started + timeoutMs;
  for (let seen = Atomics.load(arrivals, 0); seen < threads; seen = Atomics.load(arrivals, 0)) {
    const left = deadline - performance.now();
    if (left <= 0) return { ok: false, code: 'invalid', detail: `only ${seen} of ${threads} threads started in time`, timings: { taskMs: performance.now() - started } };
    Atomics.wait(arrivals, 0, seen, left);
  }
  return { ok: true, value: { body: new ArrayBuffer(0), mediaType: 'application/octet-stream' }, timings: { taskMs: performance.now() - started } };
}
