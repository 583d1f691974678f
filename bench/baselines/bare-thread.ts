// A worker thread of the floor server's 'threads' mode (floor-server.ts):
// the render task on a plain worker_threads Worker, answering each message
// on its parent port, without Piscina's bookkeeping around it. Only there
// to measure what Piscina adds to the main thread's cost per task.
import { parentPort } from 'node:worker_threads';
import type { TaskInput } from '../../workers/protocol.js';
import { render } from '../../workers/index.js';

parentPort?.on('message', (input: TaskInput<{ maxPages: number }>) => {
  render(input).then(
    (outcome) => parentPort?.postMessage(outcome),
    (error: unknown) => parentPort?.postMessage({ ok: false, code: 'crashed', detail: String(error) }),
  );
});
