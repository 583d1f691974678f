// The sides an interleaved comparison runs (interleave.ts): the Platen
// server under a closed loop of HTTP connections, a bare Piscina pool kept
// open between rounds, one thread in-process, or any task loop (a CLI
// spawned per request). The server side uses bench/loadgen.ts rather than
// autocannon: autocannon ends a run by destroying connections with
// requests in flight, the server then aborts those tasks and Piscina
// replaces their threads, so every round after the first would start on
// cold threads (see autocannon.ts).
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { render } from '../workers/render/task.js';
import type { Outcome, TaskInput, TaskName } from '../workers/protocol.js';
import { bodyOf } from './documents.js';
import type { Side } from './interleave.js';
import { generateLoad } from './loadgen.js';
import { loopFor } from './loop.js';
import type { Settings } from './settings.js';
import type { Throughput } from './stats.js';

const WORKER_FILE = fileURLToPath(new URL('../workers/index.js', import.meta.url));

export interface HttpLoad {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  readonly connections: number;
}

/** The server under `connections` closed-loop connections; req/s and latency of its 200 answers. */
export function serverSide(name: string, load: HttpLoad): Side {
  const once = async (seconds: number): Promise<Throughput> => {
    const result = await generateLoad({ ...load, method: load.method ?? 'POST', seconds });
    const ok = result.byStatus['200'];
    if (ok === undefined) throw new Error(`${name}: no 200 answer in ${seconds} s (${JSON.stringify(result.byStatus).slice(0, 300)}, ${result.errors} errors)`);
    return { requestsPerSecond: ok.perSecond, p50Ms: ok.p50Ms, p99Ms: ok.p99Ms, maxMs: ok.maxMs };
  };
  return { name, warm: async (seconds) => void (await once(seconds)), run: once };
}

/** Any task run back to back on `concurrency` loops. */
export function loopSide(name: string, concurrency: number, task: () => Promise<void>): Side {
  return { name, warm: async (seconds) => void (await loopFor(seconds, concurrency, task)), run: (seconds) => loopFor(seconds, concurrency, task) };
}

/** The render task on this thread, one after another: what one core does with no pool and no HTTP. */
export function inProcessSide(name: string, document: Buffer, options: Record<string, unknown> = {}): Side {
  return loopSide(name, 1, async () => {
    const outcome = await render({ body: bodyOf(document), length: document.byteLength, options });
    if (!outcome.ok) throw new Error(`${name}: render failed in process: ${outcome.detail}`);
  });
}

/** A bare Piscina pool with the server's threads, open for the whole bench: its threads stay warm between rounds. */
export class BarePool {
  readonly #pool: Piscina<TaskInput, Outcome>;

  constructor(settings: Settings) {
    this.#pool = new Piscina<TaskInput, Outcome>({
      filename: WORKER_FILE,
      minThreads: settings.workers,
      maxThreads: settings.workers,
      // As in src/pool/pool.ts: one task per thread, threads kept warm.
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
    });
  }

  /** The task on `inFlight` loops; `next` gives each task's body (transferred, so each gets its own copy). */
  side(name: string, inFlight: number, next: () => Buffer, task: TaskName = 'render', options: Record<string, unknown> = {}): Side {
    return loopSide(name, inFlight, async () => {
      const bytes = next();
      const body = bodyOf(bytes);
      const outcome = await this.#pool.run({ body, length: bytes.byteLength, options }, { name: task, transferList: [body] });
      if (!outcome.ok) throw new Error(`${name}: ${task} failed in the bare pool: ${outcome.detail}`);
    });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
