// The floor of the main thread's cost per render (bench/main-thread.ts): a
// uWebSockets.js server (the same native binding as Platen) that reads the
// body into one ArrayBuffer, runs the same render task on a Piscina pool of
// the same threads, and writes the PDF back corked, with nothing else: no
// key, no limits, no scheduler, no timeout, no log line, no problem
// documents. What Platen's main thread spends above this is its own
// pipeline; what this spends is HTTP and the thread hand-off themselves.
// Run as a child process: `node floor-server.js <port> <threads> [mode]`.
//
// The mode says which part of the floor is measured:
// - `pool` (the default): as above;
// - `threads`: the same task on plain worker_threads Workers, one message
//   each way (bare-thread.ts), so `pool` minus this is Piscina's own cost;
// - `http`: no thread at all, a body of the letter's PDF size written at
//   once, so this is uWebSockets.js and the socket alone. Its cost per
//   request falls as the rate rises (more requests per wake-up), so
//   main-thread.ts drives it at the rate the render servers reached.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Outcome, TaskInput, TaskValue } from '../../workers/protocol.js';
import { uws } from '../../src/http/uws.js';

type Mode = 'pool' | 'threads' | 'http';
type Run = (input: TaskInput<{ maxPages: number }>) => Promise<Outcome<TaskValue>>;

const [port = '0', threads = '2', mode = 'pool'] = process.argv.slice(2) as [string?, string?, Mode?];
/** The letter's PDF is 2.8 KB (bench/documents.ts); `http` answers with as many bytes. */
const LETTER_PDF_BYTES = 2_800;

function piscinaRun(): Run {
  const pool = new Piscina<TaskInput, Outcome<TaskValue>>({
    filename: fileURLToPath(new URL('../../workers/index.js', import.meta.url)),
    minThreads: Number(threads),
    maxThreads: Number(threads),
    concurrentTasksPerWorker: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
    recordTiming: false,
  });
  return (input) => pool.run(input, { name: 'render', transferList: [input.body] });
}

/** One task per Worker at a time; a task finding none idle waits in a FIFO, as Piscina's queue. */
function threadsRun(): Run {
  const idle: Array<{ worker: Worker; answer?: (outcome: Outcome<TaskValue>) => void }> = [];
  const waiting: Array<{ input: TaskInput<{ maxPages: number }>; answer: (outcome: Outcome<TaskValue>) => void }> = [];
  const post = (slot: (typeof idle)[number], input: TaskInput<{ maxPages: number }>, answer: (outcome: Outcome<TaskValue>) => void) => {
    slot.answer = answer;
    slot.worker.postMessage(input, [input.body]);
  };
  for (let i = 0; i < Number(threads); i++) {
    const slot: (typeof idle)[number] = { worker: new Worker(new URL('./bare-thread.js', import.meta.url)) };
    slot.worker.on('message', (outcome: Outcome<TaskValue>) => {
      const answer = slot.answer;
      const next = waiting.shift();
      if (next === undefined) idle.push(slot);
      else post(slot, next.input, next.answer);
      answer?.(outcome);
    });
    idle.push(slot);
  }
  return (input) =>
    new Promise((answer) => {
      const slot = idle.pop();
      if (slot === undefined) waiting.push({ input, answer });
      else post(slot, input, answer);
    });
}

const run: Run | undefined = mode === 'pool' ? piscinaRun() : mode === 'threads' ? threadsRun() : undefined;
const canned = new Uint8Array(LETTER_PDF_BYTES).fill(0x20);

uws
  .App()
  // What bench/child.ts polls before it measures.
  .get('/healthz', (res) => void res.end('ok'))
  .post('/api/v1/render', (res, req) => {
    const length = Number(req.getHeader('content-length'));
    let aborted = false;
    res.onAborted(() => void (aborted = true));
    const body = new ArrayBuffer(length);
    const bytes = new Uint8Array(body);
    let received = 0;
    res.onData((chunk, isLast) => {
      bytes.set(new Uint8Array(chunk), received);
      received += chunk.byteLength;
      if (!isLast) return;
      if (run === undefined) return void res.cork(() => void res.writeStatus('200 OK').writeHeader('Content-Type', 'application/pdf').end(canned));
      run({ body, length, options: { maxPages: 100 } }).then(
        (outcome) => {
          if (aborted) return;
          res.cork(() => {
            if (!outcome.ok) return void res.writeStatus('422 Unprocessable Content').end(outcome.detail);
            res.writeStatus('200 OK').writeHeader('Content-Type', outcome.value.mediaType).end(new Uint8Array(outcome.value.body));
          });
        },
        (error: unknown) => {
          if (!aborted) res.cork(() => void res.writeStatus('500 Internal Server Error').end(String(error)));
        },
      );
    });
  })
  .listen('127.0.0.1', Number(port), (socket) => {
    if (socket !== false) return;
    console.error(`floor server: cannot listen on port ${port}`);
    process.exit(1);
  });
