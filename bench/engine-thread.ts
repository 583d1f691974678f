// Worker thread entry of the engine side of the invoice comparison: the
// render task on one document (workerData: its JSON bytes), one render at a
// time, in a thread of its own like its stock pdf-lib baseline.
import { workerData } from 'node:worker_threads';
import { render } from '../workers/render/task.js';
import { bodyOf } from './documents.js';
import { serveLoops } from './thread-loop.js';

const document = Buffer.from(workerData as Uint8Array);
serveLoops(async () => {
  const outcome = await render({ body: bodyOf(document), length: document.byteLength, options: {} });
  if (!outcome.ok) throw new Error(`render failed in its thread: ${outcome.detail}`);
});
