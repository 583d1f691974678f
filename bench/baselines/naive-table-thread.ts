// Worker thread entry of the stock pdf-lib invoice baseline (naive-table.ts):
// its module graph is pdf-lib, the baseline and the loop, never our PDF seam.
// The rows come as workerData so not even the bench's documents are loaded.
import { workerData } from 'node:worker_threads';
import { serveLoops } from '../thread-loop.js';
import { assertStockFlate, naiveInvoice } from './naive-table.js';

interface NaiveTableData {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

const { header, rows } = workerData as NaiveTableData;
await assertStockFlate();
serveLoops(async () => void (await naiveInvoice(header, rows)));
