// The invoice baseline measures stock pdf-lib (bench/baselines/naive-table.ts):
// in its own worker thread pdf-lib's flate streams are unpatched, the thread
// answers a round with documents and its CPU time, and the check that guards
// it fails in a thread where our PDF seam (which patches them) was loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadSide } from '../../bench/thread-side.js';
import { NAIVE_TABLE_THREAD } from '../../bench/invoice-pair.js';
import { INVOICE_HEADER, INVOICE_ROWS } from '../../bench/engine-documents.js';

test('the stock pdf-lib baseline runs in a thread of its own and renders documents', async (t) => {
  const side = threadSide('stock pdf-lib', NAIVE_TABLE_THREAD, { header: [...INVOICE_HEADER], rows: INVOICE_ROWS.slice(0, 30) });
  t.after(() => side.close());
  const figures = await side.run(0.2);
  assert.ok(figures.requestsPerSecond > 0, 'the baseline thread rendered no document');
  assert.equal(side.cpuMsPerTask.length, 1);
});

test('assertStockFlate fails where the PDF seam has patched pdf-lib', async () => {
  const { assertStockFlate } = await import('../../bench/baselines/naive-table.js');
  await import('../../workers/seams/pdf.js');
  await assert.rejects(assertStockFlate(), /patched/);
});
