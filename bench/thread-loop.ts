// A task loop in a worker thread of its own, for a comparison whose sides
// must not share a module graph (the stock pdf-lib baseline must never see
// our PDF seam's patches: baselines/naive-table.ts). The thread runs the
// loop itself and answers with the round's figures and its own CPU time,
// read from /proc/thread-self/stat (proc(5), Linux 3.17+), so a side's CPU
// per task is its own thread's, whatever the machine's load.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { loopFor } from './loop.js';
import type { Throughput } from './stats.js';

export interface LoopRequest {
  readonly seconds: number;
}

export interface LoopAnswer {
  readonly throughput: Throughput;
  /** CPU milliseconds this thread spent in the round (10 ms ticks). */
  readonly cpuMs: number;
  readonly tasks: number;
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const TICK_MS = 10;

/** CPU milliseconds so far of the calling thread; NaN where /proc is not there. */
export function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** Serves rounds of `task` to the thread that started this worker, one round per message. */
export function serveLoops(task: () => Promise<void>): void {
  const port = parentPort;
  if (port === null) throw new Error('thread-loop.ts runs in a worker thread');
  port.on('message', (request: LoopRequest) => {
    let tasks = 0;
    const counted = async () => {
      await task();
      tasks++;
    };
    const before = threadCpuMs();
    loopFor(request.seconds, 1, counted).then(
      (throughput) => port.postMessage({ throughput, cpuMs: threadCpuMs() - before, tasks } satisfies LoopAnswer),
      (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
