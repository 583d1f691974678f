// What tagging and embedded fonts cost, in CPU time, which the machine's
// load moves less than throughput (issue 15: tagging becomes the default
// once it is within 10% of untagged; issue 14: a letter in a registered
// font within 1.5x of the standard letter). The render task
// runs in this process. Each comparison alternates its sides in short
// rounds (a few dozen renders, the order reversed every other round), many
// rounds, so that the two sides of a round see the same machine; it
// reports each side's median CPU milliseconds per render and, per side
// after the first, the median of the per-round ratios to the first with
// their interquartile range.
//
// The comparisons: the bench letter untagged (the default), tagged
// "structure" (in the standard fonts, claiming nothing: the candidate for
// the default), in two registered fonts (DejaVu Serif and its bold, as bench/pairs.ts
// registers them: the worker gets family -> file, as from the server),
// untagged in embedded fonts (pdf_a 2b: the fonts a PDF/UA render uses),
// and as PDF/UA (tagged true), then the registered-font letter against the
// standard one; the same letter with text that
// varies per request (bench/documents.ts varyingLetter: a different body
// every render, which the memos keyed on a glyph set hardly ever serve),
// untagged, "structure" and PDF/UA; and the invoice cut to one page (20
// rows), the 10-page invoice, the HTML article and the Unicode document of
// bench/engine-documents.ts, untagged and "structure". About 2 minutes.
//
//   npm run build && node dist/bench/tagged-cost.js
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RenderOptions } from '../workers/protocol.js';
import { render } from '../workers/render/task.js';
import { bodyOf, EMBEDDED_LETTER_JSON, LETTER_JSON, REGISTERED_LETTER_JSON, STRUCTURE_LETTER_JSON, TAGGED_LETTER_JSON, varyingLetter } from './documents.js';
import { ARTICLE, INVOICE, UNICODE } from './engine-documents.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
/** Wall time of one side's round: short, so both sides of a round see the same load. */
const ROUND_MS = Number(process.env.BENCH_ROUND_SECONDS ?? 0.06) * 1000;

const dejavu = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** What the server sends a worker for a client with these two registered families (RenderOptions.fonts). */
const REGISTERED: Partial<RenderOptions> = { fonts: { Brand: join(dejavu, 'DejaVuSerif.ttf'), 'Brand Bold': join(dejavu, 'DejaVuSerif-Bold.ttf') } };

/** Distinct varying letters per side: more than the renders of all rounds, so no body (and no glyph order) comes back. */
const VARYING = Number(process.env.BENCH_VARYING ?? 6000);
const STRUCTURE_OUTPUT = { output: { tagged: 'structure' } };
const TAGGED_OUTPUT = { metadata: { title: 'Dispatch of your order', language: 'en' }, output: { tagged: true } };

interface Side {
  readonly name: string;
  readonly next: () => Buffer;
  readonly options: Partial<RenderOptions>;
}

/** A side's bodies, one per render in turn. */
function varying(name: string, extra: Record<string, unknown>): Side {
  const bodies = Array.from({ length: VARYING }, (_, index) => varyingLetter(index, extra));
  let next = 0;
  return { name, next: () => bodies[next++ % bodies.length] as Buffer, options: {} };
}
const fixed = (name: string, body: Buffer, options: Partial<RenderOptions> = {}): Side => ({ name, next: () => body, options });
/** An engine document with its output set to `output`. */
function withOutput(document: Uint8Array, output: Record<string, unknown>): Buffer {
  const request = JSON.parse(Buffer.from(document).toString('utf8')) as { output?: Record<string, unknown> };
  return Buffer.from(JSON.stringify({ ...request, output: { ...request.output, ...output } }), 'utf8');
}
/** The bench invoice cut to its first 20 rows: one page, the business document most renders are. */
function onePageInvoice(): Uint8Array {
  const request = JSON.parse(Buffer.from(INVOICE).toString('utf8')) as { operations: Array<{ type: string; rows?: unknown[] }> };
  const operations = request.operations.map((op) => (op.type === 'add_table' ? { ...op, rows: op.rows?.slice(0, 20) } : op));
  return Buffer.from(JSON.stringify({ ...request, operations }), 'utf8');
}
const untaggedAndStructure = (name: string, document: Uint8Array): Side[] => [fixed(`${name}, untagged`, Buffer.from(document)), fixed(`${name}, tagged "structure"`, withOutput(document, { tagged: 'structure' }))];

const COMPARISONS: ReadonlyArray<readonly Side[]> = [
  [
    fixed('letter, untagged', LETTER_JSON),
    fixed('letter, tagged "structure" (standard fonts, no claim)', STRUCTURE_LETTER_JSON),
    fixed('letter, embedded fonts, untagged (pdf_a 2b)', EMBEDDED_LETTER_JSON),
    fixed('letter, PDF/UA (tagged true)', TAGGED_LETTER_JSON),
  ],
  // Issue 14: the letter in registered fonts against the standard letter.
  [fixed('letter', LETTER_JSON), fixed('letter in registered fonts', REGISTERED_LETTER_JSON, REGISTERED)],
  [varying('varying letter, untagged', {}), varying('varying letter, tagged "structure"', STRUCTURE_OUTPUT), varying('varying letter, PDF/UA', TAGGED_OUTPUT)],
  untaggedAndStructure('invoice (1 page, 20 rows)', onePageInvoice()),
  untaggedAndStructure('invoice (10 pages)', INVOICE),
  untaggedAndStructure('HTML article', ARTICLE),
  untaggedAndStructure('Unicode document', UNICODE),
];

/** CPU ms per render over a round of about `ms` wall time (at least one render). */
async function round(side: Side, ms: number): Promise<number> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let renders = 0;
  do {
    const body = side.next();
    const outcome = await render({ body: bodyOf(body), length: body.byteLength, options: side.options });
    if (!outcome.ok) throw new Error(`${side.name}: render failed: ${outcome.detail}`);
    renders++;
  } while (performance.now() - start < ms);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / renders;
}

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: readonly number[], q: number) => sorted(values)[Math.floor((values.length - 1) * q)] as number;

for (const sides of COMPARISONS) {
  for (const side of sides) await round(side, 1000);
  const figures = sides.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
    for (const i of order) (figures[i] as number[]).push(await round(sides[i] as Side, ROUND_MS));
  }
  const first = figures[0] as number[];
  for (const [i, side] of sides.entries()) {
    const values = figures[i] as number[];
    const ratios = values.map((value, r) => value / (first[r] as number));
    const against = i === 0 ? '' : `; ÷ ${(sides[0] as Side).name}: ${quantile(ratios, 0.5).toFixed(3)} (IQR ${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)})`;
    console.log(`${side.name}: ${quantile(values, 0.5).toFixed(3)} ms CPU per render${against}`);
  }
  console.log('');
}
