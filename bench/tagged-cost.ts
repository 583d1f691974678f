// What embedded fonts cost, in CPU time, which the machine's load does not
// move (issue 15: tagging becomes the default once it is within 10% of
// untagged; issue 14: a letter in a registered font within 1.5x of the
// standard letter). The render task runs in this process, one render after
// another, in interleaved rounds of the four sides: the bench letter
// untagged, the same letter in two registered fonts (DejaVu Serif and its
// bold, as bench/pairs.ts registers them: the worker gets family -> file,
// as from the server), untagged in embedded fonts (pdf_a 2b: the fonts a
// tagged render uses), and tagged. Per side: the median over rounds of CPU
// milliseconds per render (process.cpuUsage; the task is synchronous work on
// this thread, plus GC). Ratios: registered ÷ standard, tagged ÷ untagged
// (the default's cost), embedded ÷ untagged and tagged ÷ embedded (the
// tagging itself). Then the same letter with text that varies per request
// (bench/documents.ts varyingLetter: addressee, product, amount, paragraph
// order; a different body every render), untagged and tagged: the memos
// keyed on a glyph set (font subsets, ToUnicode CMaps, font objects) serve
// the fixed letter every time and the varying one hardly ever. About 55 s.
//
//   npm run build && node dist/bench/tagged-cost.js
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RenderOptions } from '../workers/protocol.js';
import { render } from '../workers/render/task.js';
import { bodyOf, EMBEDDED_LETTER_JSON, LETTER_JSON, REGISTERED_LETTER_JSON, TAGGED_LETTER_JSON, varyingLetter } from './documents.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_SECONDS ?? 1.2) * 1000;

const dejavu = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** What the server sends a worker for a client with these two registered families (RenderOptions.fonts). */
const REGISTERED: Partial<RenderOptions> = { fonts: { Brand: join(dejavu, 'DejaVuSerif.ttf'), 'Brand Bold': join(dejavu, 'DejaVuSerif-Bold.ttf') } };

/** Distinct varying letters per side: more than the renders of all rounds, so no body (and no glyph order) comes back. */
const VARYING = Number(process.env.BENCH_VARYING ?? 6000);
const TAGGED_OUTPUT = { metadata: { title: 'Dispatch of your order', language: 'en-GB' }, output: { tagged: true } };

/** A side's bodies, one per render in turn. */
function varying(extra: Record<string, unknown>): () => Buffer {
  const bodies = Array.from({ length: VARYING }, (_, index) => varyingLetter(index, extra));
  let next = 0;
  return () => bodies[next++ % bodies.length] as Buffer;
}
const fixed = (body: Buffer) => () => body;

const SIDES: ReadonlyArray<readonly [string, () => Buffer, Partial<RenderOptions>]> = [
  ['untagged', fixed(LETTER_JSON), {}],
  ['registered fonts, untagged', fixed(REGISTERED_LETTER_JSON), REGISTERED],
  ['embedded fonts, untagged (pdf_a 2b)', fixed(EMBEDDED_LETTER_JSON), {}],
  ['tagged', fixed(TAGGED_LETTER_JSON), {}],
  ['varying text, untagged', varying({}), {}],
  ['varying text, tagged', varying(TAGGED_OUTPUT), {}],
];

async function renderOnce(body: Buffer, options: Partial<RenderOptions>): Promise<void> {
  const outcome = await render({ body: bodyOf(body), length: body.byteLength, options });
  if (!outcome.ok) throw new Error(`render failed: ${outcome.detail}`);
}

/** CPU ms per render over a round of about `ms` wall time. */
async function round(next: () => Buffer, options: Partial<RenderOptions>, ms: number): Promise<number> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let renders = 0;
  while (performance.now() - start < ms) {
    await renderOnce(next(), options);
    renders++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / renders;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

for (const [, body, options] of SIDES) await round(body, options, 1000);
const figures = SIDES.map(() => [] as number[]);
for (let r = 0; r < ROUNDS; r++) {
  for (const [index, [, body, options]] of SIDES.entries()) (figures[index] as number[]).push(await round(body, options, ROUND_MS));
}
const ms = figures.map(median);
const [untagged, registered, embedded, tagged, varyingUntagged, varyingTagged] = ms as [number, number, number, number, number, number];
for (const [index, [name]] of SIDES.entries()) {
  const values = figures[index] as number[];
  console.log(`${name}: ${(ms[index] as number).toFixed(2)} ms CPU per render (rounds ${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`);
}
console.log(`registered fonts ÷ untagged: ${(registered / untagged).toFixed(3)} (issue 14's target ≤ 1.5)`);
console.log(`embedded fonts (pdf_a 2b) ÷ untagged: ${(embedded / untagged).toFixed(3)}`);
console.log(`tagged ÷ untagged: ${(tagged / untagged).toFixed(3)} (cost; within 10% means ≤ 1.10)`);
console.log(`tagged ÷ embedded fonts untagged: ${(tagged / embedded).toFixed(3)} (the tagging itself)`);
console.log(`varying text: tagged ÷ untagged: ${(varyingTagged / varyingUntagged).toFixed(3)} (cost; within 10% means ≤ 1.10)`);
