// `node dist/bench/compare.js` (not part of `make bench`; about a minute
// with the defaults): POST /v1/compare of two 50-page documents with one
// request per worker in flight, beside the same task on a bare Piscina pool
// with the same threads and as many in flight (no HTTP, auth or envelope),
// and the ratio. One per worker, not the render scenarios' two: a comparison
// takes about a second, and the scheduler's admission control answers 503
// to requests whose expected wait in the queue is that long (src/pool/),
// which would measure the admission policy, not the comparison. Then one comparison of
// two 300-page documents, timed in this process, against the processing
// timeout (issue 10: "two 300-page documents compare within the timeout"),
// once with two changes and once against 300 pages of unrelated text (the
// diff's worst case: nearly every word differs).
//
// The documents are the bench's business letter, one per page, rendered by
// the server itself; B changes the date on page 25 and inserts a page after
// page 40, so the answer is one modification and one page_added. The load
// runs use the default mode, `semantic` (which also lays out every page:
// blocks and reading order); the 300-page timings run both modes. To stay
// near a minute on a shared machine, each load run is one warm-up plus one
// measured run, and the unrelated 300-page pair runs once, in text mode
// (its per-page fallback: the slower of the two).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { measure, type LoadFigures } from './autocannon.js';
import { barePool } from './baselines/pool.js';
import { stopChildrenOnExit } from './child.js';
import { LETTER } from './documents.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, RENDER_PATH } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';
import { ratio, type Throughput } from './stats.js';
import { compareDocuments } from '../workers/compare/compare.js';

const PATH = '/v1/compare';
const PAGES = 50;
const LONG = 300;
const step = (text: string) => process.stderr.write(`bench compare: ${text}\n`);

const UNRELATED = [
  { type: 'add_text', text: 'Completely different words on every line of this document, about turbines, gearboxes and the maintenance of wind farms offshore. '.repeat(18) },
];

/** The letter `pages` times; `changed` pages carry another date; `inserted` adds a page after that page number. */
function letters(pages: number, changed: ReadonlySet<number> = new Set(), inserted?: number): unknown {
  const operations = [];
  for (let page = 1; page <= pages; page++) {
    if (page > 1) operations.push({ type: 'add_page' });
    const date = changed.has(page) ? 'Leeds, 24 March 2025' : 'Leeds, 21 March 2025';
    operations.push(...LETTER.operations.map((op) => (op.text === 'Leeds, 21 March 2025' ? { ...op, text: date } : op)));
    if (page === inserted) operations.push({ type: 'add_page' }, { type: 'add_text', text: 'Annex: delivery schedule for the Rotterdam plant, week 14.' });
  }
  return { ...LETTER, operations };
}

async function render(base: string, document: unknown): Promise<Buffer> {
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify(document) });
  const pdf = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`rendering failed: ${response.status} ${pdf.toString('utf8').slice(0, 300)}`);
  return pdf;
}

interface Answer {
  readonly data?: { readonly changes?: { readonly type: string }[] };
}

async function check(base: string, body: Buffer): Promise<string[]> {
  const response = await fetch(base + PATH, { method: 'POST', headers: RENDER_HEADERS, body });
  const text = await response.text();
  const types = ((response.status === 200 ? JSON.parse(text) : {}) as Answer).data?.changes?.map((c) => c.type) ?? [];
  if (types.join(',') !== 'modification,page_added') throw new Error(`compare check failed: ${response.status} ${text.slice(0, 500)}`);
  return types;
}

interface ModeResult {
  readonly server: LoadFigures;
  readonly barePool: Throughput;
  /** Server requests/s ÷ bare pool tasks/s (target ≥ 0.9, as for every task). */
  readonly serverToPool: number | undefined;
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const info = runInfo(settings);
  const server = await startPlaten(settings);
  const bodies = new Map<string, Buffer>();
  const figures = new Map<string, LoadFigures>();
  let long: [Buffer, Buffer];
  let unrelated: Buffer;
  try {
    step(`rendering two ${PAGES}-page and two ${LONG}-page documents`);
    const a = await render(server.base, letters(PAGES));
    const b = await render(server.base, letters(PAGES, new Set([25]), 40));
    long = [await render(server.base, letters(LONG)), await render(server.base, letters(LONG, new Set([25]), 40))];
    unrelated = await render(server.base, { ...LETTER, operations: Array.from({ length: LONG }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), ...UNRELATED]).flat() });
    for (const mode of ['semantic']) {
      const body = Buffer.from(JSON.stringify({ pdf_a: a.toString('base64'), pdf_b: b.toString('base64'), options: { mode } }), 'utf8');
      await check(server.base, body);
      bodies.set(mode, body);
      step(`POST ${PATH} (${mode}), ${settings.workers} connections`);
      figures.set(mode, await measure({ url: server.base + PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections: settings.workers }, settings.warmupSeconds, settings.seconds));
    }
  } finally {
    await server.stop();
  }
  const results: Record<string, ModeResult> = {};
  const longMs: Record<string, number> = {};
  for (const mode of ['text', 'semantic'] as const) {
    step(`${LONG} pages against ${LONG} (${mode}), once, in this process`);
    const started = performance.now();
    const comparison = await compareDocuments(
      { bytes: new Uint8Array(long[0]), fields: { data: 'pdf_a', password: 'password_a' } },
      { bytes: new Uint8Array(long[1]), fields: { data: 'pdf_b', password: 'password_b' } },
      { mode, ignoreFormatting: false, maxPages: 2000, workBudget: 50_000_000 },
    );
    longMs[mode] = Math.round(performance.now() - started);
    if (comparison.changes.map((c) => c.type).join(',') !== 'modification,page_added') throw new Error(`the ${LONG}-page comparison found ${JSON.stringify(comparison.changes).slice(0, 300)}`);
  }
  step(`${LONG} pages against ${LONG} unrelated ones (text), once, in this process`);
  const unrelatedStarted = performance.now();
  await compareDocuments(
    { bytes: new Uint8Array(long[0]), fields: { data: 'pdf_a', password: 'password_a' } },
    { bytes: new Uint8Array(unrelated), fields: { data: 'pdf_b', password: 'password_b' } },
    { mode: 'text', ignoreFormatting: false, maxPages: 2000, workBudget: 50_000_000 },
  );
  const unrelatedMs = Math.round(performance.now() - unrelatedStarted);
  step('bare pool (semantic)');
  const pool = await barePool(settings, settings.workers, bodies.get('semantic') as Buffer, { name: 'compare', options: { maxPages: 2000, workBudget: 50_000_000 } });
  const loaded = figures.get('semantic') as LoadFigures;
  results.semantic = { server: loaded, barePool: pool, serverToPool: ratio(loaded.requestsPerSecond, pool.requestsPerSecond) };
  writeFileSync(join(settings.resultsDir, 'compare.json'), `${JSON.stringify({ info, pages: PAGES, longPages: LONG, results, longMs, unrelatedMs }, null, 2)}\n`);
  for (const [mode, r] of Object.entries(results)) {
    process.stdout.write(
      `${mode}, ${PAGES} vs ${PAGES + 1} pages: server ${r.server.requestsPerSecond} req/s (p50 ${r.server.p50Ms} ms, p99 ${r.server.p99Ms} ms), bare pool ${r.barePool.requestsPerSecond}/s, ratio ${r.serverToPool}\n`,
    );
  }
  process.stdout.write(`${LONG} vs ${LONG + 1} pages once: text ${longMs.text} ms, semantic ${longMs.semantic} ms; against ${LONG} unrelated pages (text): ${unrelatedMs} ms\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench compare: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
  process.exit();
});
