// What tagged output (output.tagged, PDF/UA-1) costs, in CPU time, which the
// machine's load does not move (issue 15: tagging becomes the default once
// it is within 10% of untagged). The render task runs in this process, one
// render after another, in interleaved rounds of the three sides: the bench
// letter untagged, untagged in embedded fonts (pdf_a 2b: the fonts a tagged
// render uses), and tagged. Per side: the median over rounds of CPU
// milliseconds per render (process.cpuUsage; the task is synchronous work on
// this thread, plus GC). Ratios: tagged ÷ untagged (the default's cost) and
// tagged ÷ embedded (the tagging itself). About 30 s.
//
//   npm run build && node dist/bench/tagged-cost.js
import { render } from '../workers/render/task.js';
import { bodyOf, EMBEDDED_LETTER_JSON, LETTER_JSON, TAGGED_LETTER_JSON } from './documents.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_SECONDS ?? 1.2) * 1000;

const SIDES = [
  ['untagged', LETTER_JSON],
  ['embedded fonts, untagged (pdf_a 2b)', EMBEDDED_LETTER_JSON],
  ['tagged', TAGGED_LETTER_JSON],
] as const;

async function renderOnce(body: Buffer): Promise<void> {
  const outcome = await render({ body: bodyOf(body), length: body.byteLength, options: {} });
  if (!outcome.ok) throw new Error(`render failed: ${outcome.detail}`);
}

/** CPU ms per render over a round of about `ms` wall time. */
async function round(body: Buffer, ms: number): Promise<number> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let renders = 0;
  while (performance.now() - start < ms) {
    await renderOnce(body);
    renders++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / renders;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

for (const [, body] of SIDES) await round(body, 1000);
const figures = SIDES.map(() => [] as number[]);
for (let r = 0; r < ROUNDS; r++) {
  for (const [index, [, body]] of SIDES.entries()) (figures[index] as number[]).push(await round(body, ROUND_MS));
}
const ms = figures.map(median);
const [untagged, embedded, tagged] = ms as [number, number, number];
for (const [index, [name]] of SIDES.entries()) {
  const values = figures[index] as number[];
  console.log(`${name}: ${(ms[index] as number).toFixed(2)} ms CPU per render (rounds ${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`);
}
console.log(`tagged ÷ untagged: ${(tagged / untagged).toFixed(3)} (cost; within 10% means ≤ 1.10)`);
console.log(`tagged ÷ embedded fonts untagged: ${(tagged / embedded).toFixed(3)} (the tagging itself)`);
