// The floor of the main thread's cost per render (bench/main-thread.ts): a
// uWebSockets.js server (the same native binding as Platen) that reads the
// body into one ArrayBuffer, runs the same render task on a Piscina pool of
// the same threads, and writes the PDF back corked, with nothing else: no
// key, no limits, no scheduler, no timeout, no log line, no problem
// documents. What Platen's main thread spends above this is its own
// pipeline; what this spends is HTTP and the thread hand-off themselves.
// Run as a child process: `node floor-server.js <port> <threads>`.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Outcome, TaskInput, TaskValue } from '../../workers/protocol.js';
import { uws } from '../../src/http/uws.js';

const [port = '0', threads = '2'] = process.argv.slice(2);
const pool = new Piscina<TaskInput, Outcome<TaskValue>>({
  filename: fileURLToPath(new URL('../../workers/index.js', import.meta.url)),
  minThreads: Number(threads),
  maxThreads: Number(threads),
  concurrentTasksPerWorker: 1,
  idleTimeout: Number.MAX_SAFE_INTEGER,
  recordTiming: false,
});

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
      pool.run({ body, length, options: { maxPages: 100 } }, { name: 'render', transferList: [body] }).then(
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
