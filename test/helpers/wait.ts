// The one way a test waits for something it cannot be told about (a file
// watcher's reload, a job's status, a thread coming back): ask again until
// the answer is truthy or the time is up. The timeout is a failure bound,
// never the thing the test waits for: where time itself is what a test is
// about (cooldowns, expiry), the code under test takes a clock instead.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long; the error says what was awaited. Default 10 s. */
  readonly timeoutMs?: number;
  /** Pause between two asks. Default 10 ms. */
  readonly intervalMs?: number;
  /** What is awaited, for the error message. */
  readonly what?: string;
}

/** Resolves with the first truthy answer of `probe`; rejects after `timeoutMs`. A probe that throws fails at once. */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 10, what = 'the condition' } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer) return answer as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
