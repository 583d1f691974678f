// Issue 14's engine target on its own (about 40 s): the invoice (200 rows,
// 10 pages) through the render engine ÷ the same table drawn with stock
// pdf-lib's drawText per cell, each in a worker thread of its own
// (thread-side.ts), in interleaved rounds as `make bench` runs it
// (pairs.ts). Prints the median throughput ratio with its range and each
// side's CPU milliseconds per document (its own thread's, from /proc), whose
// quotient the machine's load does not move.
//
//   npm run build && node dist/bench/invoice-pair.js
import { fileURLToPath } from 'node:url';
import { INVOICE, INVOICE_HEADER, INVOICE_ROWS } from './engine-documents.js';
import { interleave, medianOf } from './interleave.js';
import { round } from './stats.js';
import { threadSide, type ThreadSide } from './thread-side.js';

export const ENGINE_THREAD = fileURLToPath(new URL('./engine-thread.js', import.meta.url));
export const NAIVE_TABLE_THREAD = fileURLToPath(new URL('./baselines/naive-table-thread.js', import.meta.url));

/** The two sides of the invoice comparison; close both when done. */
export function invoiceSides(): readonly [ThreadSide, ThreadSide] {
  return [
    threadSide('engine, own thread', ENGINE_THREAD, new Uint8Array(INVOICE)),
    threadSide('stock pdf-lib drawText, own thread', NAIVE_TABLE_THREAD, { header: [...INVOICE_HEADER], rows: INVOICE_ROWS }),
  ];
}

/** CPU ms per document of the baseline ÷ the engine's, round by round: the engine's speed-up in CPU time. */
export function cpuRatios(engine: ThreadSide, naive: ThreadSide): number[] {
  return engine.cpuMsPerTask.map((ms, i) => round((naive.cpuMsPerTask[i] as number) / ms, 3));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [engine, naive] = invoiceSides();
  try {
    const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
    const ratio = await interleave('invoice: engine ÷ stock pdf-lib', engine, naive, { rounds, roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? 2.5), warmupSeconds: 3 });
    const cpu = cpuRatios(engine, naive);
    const ms = (side: ThreadSide) => `${round(medianOf(side.cpuMsPerTask), 2)} ms (${round(Math.min(...side.cpuMsPerTask), 2)}-${round(Math.max(...side.cpuMsPerTask), 2)})`;
    console.log(`throughput ratio, median of ${rounds} rounds: ${ratio.median} (${ratio.min}-${ratio.max}); ${ratio.aMedian.requestsPerSecond} against ${ratio.bMedian.requestsPerSecond} documents/s; load ${ratio.load.before} → ${ratio.load.after}`);
    console.log(`CPU per document: engine ${ms(engine)}, stock pdf-lib ${ms(naive)}; ratio ${medianOf(cpu)} (${Math.min(...cpu)}-${Math.max(...cpu)})`);
  } finally {
    await engine.close();
    await naive.close();
  }
}
