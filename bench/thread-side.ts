// The main thread's end of thread-loop.ts: a comparison side whose task loop
// runs in its own worker thread (one thread, one task at a time, as the
// in-process sides), kept open between rounds so it stays warm. Beside each
// round's throughput it keeps the thread's CPU milliseconds per task.
import { Worker } from 'node:worker_threads';
import type { Side } from './interleave.js';
import type { Throughput } from './stats.js';
import type { LoopAnswer } from './thread-loop.js';

export interface ThreadSide extends Side {
  /** The thread's CPU ms per task, one figure per measured round (warm-ups left out). */
  readonly cpuMsPerTask: readonly number[];
  close(): Promise<void>;
}

export function threadSide(name: string, file: string, workerData: unknown): ThreadSide {
  const worker = new Worker(file, { workerData });
  const cpuMsPerTask: number[] = [];
  const round = (seconds: number): Promise<LoopAnswer> =>
    new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(new Error(`${name}: ${error.message}`));
      worker.once('error', onError);
      worker.once('message', (answer: LoopAnswer | { error: string }) => {
        worker.off('error', onError);
        if ('error' in answer) reject(new Error(`${name}: ${answer.error}`));
        else resolve(answer);
      });
      worker.postMessage({ seconds });
    });
  return {
    name,
    cpuMsPerTask,
    warm: async (seconds) => void (await round(seconds)),
    run: async (seconds): Promise<Throughput> => {
      const answer = await round(seconds);
      cpuMsPerTask.push(answer.tasks > 0 ? answer.cpuMs / answer.tasks : Number.NaN);
      return answer.throughput;
    },
    close: async () => void (await worker.terminate()),
  };
}
