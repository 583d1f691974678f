// Each worker thread starts with the old generation capped at
// PLATEN_WORKER_MEMORY_MB and a young generation twice V8's default
// (src/pool/worker-limits.ts); a thread started with those limits runs under them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { WORKER_YOUNG_GENERATION_MB, workerResourceLimits } from '../../src/pool/worker-limits.js';

test('the limits cap the old generation at the configured memory and widen the young generation', () => {
  assert.deepEqual(workerResourceLimits(512), { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB });
  assert.equal(workerResourceLimits(64).maxOldGenerationSizeMb, 64);
  // V8's default young generation is 48 MB (16 MB semi-spaces); the point is to have more.
  assert.ok(WORKER_YOUNG_GENERATION_MB > 48);
});

test('a worker thread started with the limits runs under them', async () => {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(require('node:worker_threads').resourceLimits)", {
    eval: true,
    resourceLimits: workerResourceLimits(256),
  });
  const [limits] = (await once(worker, 'message')) as [Record<string, number>];
  await worker.terminate();
  assert.equal(limits.maxOldGenerationSizeMb, 256);
  assert.equal(limits.maxYoungGenerationSizeMb, WORKER_YOUNG_GENERATION_MB);
});
