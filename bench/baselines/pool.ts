// Baseline (a), the ceiling: the same task through a bare Piscina pool with
// the server's thread count, and as many tasks in flight as the HTTP run has
// connections. No HTTP, no auth, no body reading: whatever the server loses
// against this is its own overhead plus the load generator's CPU.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Outcome, TaskInput, TaskName } from '../../workers/protocol.js';
import { bodyOf } from '../documents.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import type { Throughput } from '../stats.js';

const WORKER_FILE = fileURLToPath(new URL('../../workers/index.js', import.meta.url));

/** Which task the pool runs, and with what: `document` is one body, or a function giving the next. */
export interface BareTask {
  readonly name: TaskName;
  readonly options?: Record<string, unknown>;
}

export async function barePool(settings: Settings, inFlight: number, document: Buffer | (() => Buffer), task: BareTask = { name: 'render' }): Promise<Throughput> {
  const pool = new Piscina<TaskInput, Outcome>({
    filename: WORKER_FILE,
    minThreads: settings.workers,
    maxThreads: settings.workers,
    // As in src/pool/pool.ts: one task per thread, threads kept warm.
    concurrentTasksPerWorker: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
  });
  const next = typeof document === 'function' ? document : () => document;
  const run = async () => {
    const bytes = next();
    // The body is transferred, so each task gets its own copy, as each HTTP request has its own body.
    const body = bodyOf(bytes);
    const outcome = await pool.run({ body, length: bytes.byteLength, options: task.options ?? {} }, { name: task.name, transferList: [body] });
    if (!outcome.ok) throw new Error(`${task.name} failed in the bare pool: ${outcome.detail}`);
  };
  try {
    return await warmThenLoop(settings.warmupSeconds, settings.seconds, inFlight, run);
  } finally {
    await pool.close();
  }
}
