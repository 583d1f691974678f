// POST /api/v1/optimize beside Ghostscript's pdfwrite at the same settings
// (`npm run bench:optimize`, under a minute; writes bench/results/optimize.json).
// Prerequisite: Debian's `ghostscript` (`gs`), a bench-only tool (AGPL: never
// a dependency); without it the Ghostscript rows are skipped with a note.
//
// Two documents, built as the tests build them (test/fixtures/optimize-documents.ts):
// - image-heavy: 4 pages of photographs (1800 x 1200 JPEGs at quality 90)
//   placed 200 pt wide, one stored twice, a lossless chart and a picture
//   with an alpha channel;
// - text-heavy: 20 pages of text in Times and Helvetica, one font embedded
//   twice, written without object streams.
// For each: output size of one request (ebook, 150 dpi) against
// `gs -sDEVICE=pdfwrite -dPDFSETTINGS=/ebook` on the same file (which also
// downsamples to 150 dpi); then throughput at saturation through the server
// against gs spawned per request, workers at a time (its best case: no
// HTTP, no base64, files on disk), the two sides alternating in rounds
// (interleave.ts: A B A B, the median of the rounds' ratios with its
// spread), so the shared machine's noise lands on both sides of each
// ratio. And the image-heavy task on a bare Piscina pool with the server's
// threads, for the server's overhead (target ratio ≥ 0.9; bench:large's
// docops2 group interleaves that one).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { imageHeavyPdf, textHeavyPdf } from '../test/fixtures/optimize-documents.js';
import { barePool } from './baselines/pool.js';
import { stopChildrenOnExit } from './child.js';
import { interleave, type InterleavedRatio } from './interleave.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { loopSide, serverSide } from './sides.js';
import { ratio, round } from './stats.js';

const run = promisify(execFile);
const step = (text: string) => process.stderr.write(`bench optimize: ${text}\n`);
const PATH = '/api/v1/optimize';

interface DocumentRow {
  readonly inputBytes: number;
  readonly platenBytes: number;
  readonly platenOutcome: string | null;
  readonly platenMs: number;
  readonly ghostscriptBytes?: number;
  readonly ghostscriptMs?: number;
  readonly sizeToGhostscript?: number;
  /** Platen (A) against gs spawned per request (B), interleaved rounds; absent without gs. */
  readonly serverToGhostscript?: InterleavedRatio;
}

async function hasGhostscript(): Promise<boolean> {
  try {
    await run('gs', ['--version']);
    return true;
  } catch {
    return false;
  }
}

async function ghostscript(input: string, output: string): Promise<void> {
  await run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dPDFSETTINGS=/ebook', `-sOutputFile=${output}`, input]);
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings: Settings = { ...loadSettings({ BENCH_SECONDS: '5', BENCH_WARMUP_SECONDS: '1', BENCH_ROUND_SECONDS: '2', ...process.env }) };
  const connections = saturation(settings);
  const gs = await hasGhostscript();
  if (!gs) step('gs not found (apt-get install ghostscript): the Ghostscript rows are skipped');
  const documents = {
    'image-heavy': Buffer.from(await imageHeavyPdf({ pages: 4, photoWidth: 1800, placedWidth: 200 })),
    'text-heavy': Buffer.from(await textHeavyPdf(20)),
  };
  const bodies = Object.fromEntries(Object.entries(documents).map(([name, pdf]) => [name, Buffer.from(JSON.stringify({ pdf: pdf.toString('base64'), profile: 'ebook' }))]));
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-optimize-'));
  const server = await startPlaten(settings);
  const rows: Record<string, DocumentRow> = {};
  try {
    for (const [name, pdf] of Object.entries(documents)) {
      const body = bodies[name] as Buffer;
      const started = performance.now();
      const response = await fetch(server.base + PATH, { method: 'POST', headers: RENDER_HEADERS, body });
      const platenMs = performance.now() - started;
      if (response.status !== 200) throw new Error(`${name}: ${response.status} ${(await response.text()).slice(0, 500)}`);
      const platenBytes = (await response.arrayBuffer()).byteLength;
      const platenOutcome = response.headers.get('x-optimization');
      let row: DocumentRow = { inputBytes: pdf.length, platenBytes, platenOutcome, platenMs: round(platenMs, 1) };
      if (gs) {
        const input = join(dir, `${name}.pdf`);
        await writeFile(input, pdf);
        const once = performance.now();
        await ghostscript(input, join(dir, `${name}-gs.pdf`));
        const ghostscriptMs = performance.now() - once;
        const ghostscriptBytes = (await stat(join(dir, `${name}-gs.pdf`))).size;
        step(`${name}: the server (${connections} connections) against gs spawned per request (${settings.workers} at a time), ${settings.rounds} interleaved rounds of ${settings.roundSeconds} s`);
        let next = 0;
        const platen = serverSide('Platen', { url: server.base + PATH, headers: { ...RENDER_HEADERS }, body, connections });
        const gsSide = loopSide('gs /ebook', settings.workers, async () => {
          const output = join(dir, `${name}-${next++}.pdf`);
          await ghostscript(input, output);
          await readFile(output);
          await rm(output);
        });
        const throughput = await interleave(name, platen, gsSide, { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds });
        row = { ...row, ghostscriptBytes, ghostscriptMs: round(ghostscriptMs, 1), sizeToGhostscript: ratio(platenBytes, ghostscriptBytes), serverToGhostscript: throughput };
      }
      rows[name] = row;
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  step('image-heavy on a bare pool');
  const pool = await barePool(settings, connections, bodies['image-heavy'] as Buffer, { name: 'optimize', options: { maxPages: 2000 } });
  const heavy = rows['image-heavy'] as DocumentRow;
  const heavyServer = heavy.serverToGhostscript?.aMedian.requestsPerSecond;
  const out = {
    ...runInfo(settings),
    connections,
    documents: rows,
    imageHeavyBarePool: pool,
    // Not interleaved: the pool runs after the server has stopped (bench:large's docops2 interleaves it).
    imageHeavyServerToBarePool: heavyServer === undefined ? undefined : ratio(heavyServer, pool.requestsPerSecond),
  };
  writeFileSync(join(settings.resultsDir, 'optimize.json'), `${JSON.stringify(out, null, 2)}\n`);
  for (const [name, row] of Object.entries(rows)) {
    const t = row.serverToGhostscript;
    const gsPart =
      row.ghostscriptBytes === undefined || t === undefined
        ? ''
        : `; gs /ebook ${row.ghostscriptBytes} bytes in ${row.ghostscriptMs} ms (size ratio ${row.sizeToGhostscript}); ` +
          `server ${t.aMedian.requestsPerSecond} req/s (p99 ${t.aMedian.p99Ms} ms), gs ${t.bMedian.requestsPerSecond}/s, ratio ${t.median} (${t.min}-${t.max})${t.noisy ? ' noisy' : ''}, load ${t.load.before} → ${t.load.after}`;
    process.stdout.write(`${name}: ${row.inputBytes} → ${row.platenBytes} bytes (${row.platenOutcome}) in ${row.platenMs} ms${gsPart}\n`);
  }
  process.stdout.write(`image-heavy bare pool ${pool.requestsPerSecond} req/s (server ratio ${out.imageHeavyServerToBarePool})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench optimize failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
