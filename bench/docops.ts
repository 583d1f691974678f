// The render API's capability operations at saturation (`npm run bench:docops`,
// about a minute): each through the server and the same task on a bare
// Piscina pool (target ≥ 0.9), and beside the command-line tool a service
// would otherwise spawn per request:
// - merge: ten 10-page documents into one, against `qpdf --empty --pages`;
// - split: pages 2-4 and 7 of a 10-page document, as one PDF;
// - extract-text: a 10-page document's plain text, against `pdftotext`;
// - sign: a PAdES B-B signature (RSA 2048, the PKCS#12 in the request, so
//   each request also opens it) on the 10-page document: signatures/s;
// - fill-form: nine fields of every kind (Cyrillic and Greek values, so the
//   DejaVu Sans subset is embedded) into the one-page test form;
// - redact: a phrase and a digits pattern found with the reader and removed
//   from the 10-page document's content streams (every page read, every
//   page with a match rewritten, the file written afresh).
// BENCH_DOCOPS=fill-form,sign runs only those (each costs two warm-ups and
// two runs); the CLI baselines run with merge and extract-text.
// The inputs are rendered by the server itself at start (the business letter
// of the render scenarios, ten pages). The CLI baselines read files written
// once and skip HTTP, JSON and base64: their best case.
//
// Its own script rather than a scenario of bench/run.ts, so that it can run
// alone in a minute; it writes bench/results/docops.json.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TaskName } from '../workers/protocol.js';
import { measure, type LoadFigures } from './autocannon.js';
import { stopChildrenOnExit } from './child.js';
import { barePool } from './baselines/pool.js';
import { warmThenLoop } from './loop.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, renderPages, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { signingCertificate } from './signer.js';
import { FILLED_VALUES, formPdf } from '../test/helpers/form-pdf.js';
import { loadSettings, type Settings } from './settings.js';
import { ratio, type Throughput } from './stats.js';

const run = promisify(execFile);
const step = (text: string) => process.stderr.write(`bench docops: ${text}\n`);

interface Operation {
  readonly name: string;
  readonly path: string;
  readonly task: TaskName;
  readonly options: Record<string, unknown>;
  readonly body: Buffer;
  /** Pages each request handles, for pages/s. */
  readonly pages: number;
}

async function check(base: string, operation: Operation): Promise<void> {
  const response = await fetch(base + operation.path, { method: 'POST', headers: RENDER_HEADERS, body: operation.body });
  if (response.status !== 200) throw new Error(`${operation.name} check failed: ${response.status} ${(await response.text()).slice(0, 500)}`);
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  // Short runs by default: six server and pool runs and two CLI runs fit in about a minute.
  const settings: Settings = { ...loadSettings({ BENCH_SECONDS: '5', BENCH_WARMUP_SECONDS: '2', ...process.env }) };
  const connections = saturation(settings);
  const chosen = process.env.BENCH_DOCOPS?.split(',').map((name) => name.trim());
  const server = await startPlaten(settings);
  const operations: Operation[] = [];
  const onServer = new Map<string, LoadFigures>();
  let document: Buffer;
  try {
    document = await renderPages(server.base, 10);
    const pdf = document.toString('base64');
    const body = (value: unknown) => Buffer.from(JSON.stringify(value));
    const certificate = await signingCertificate();
    operations.push(
      { name: 'merge', path: '/api/v1/merge', task: 'merge', options: { maxPages: 2000 }, body: body({ documents: Array.from({ length: 10 }, () => ({ pdf })) }), pages: 100 },
      { name: 'split', path: '/api/v1/split', task: 'split', options: { maxPages: 2000 }, body: body({ pdf, pages: '2-4,7' }), pages: 4 },
      {
        name: 'extract-text',
        path: '/api/v1/extract-text',
        task: 'capability-extract-text',
        options: { maxPages: 2000, workBudget: 5_000_000 },
        body: body({ pdf }),
        pages: 10,
      },
      { name: 'sign', path: '/api/v1/sign', task: 'sign', options: {}, body: body({ pdf, reason: 'Bench', certificate }), pages: 10 },
      { name: 'fill-form', path: '/api/v1/fill-form', task: 'fill-form', options: { maxPages: 2000 }, body: body({ pdf: Buffer.from(await formPdf()).toString('base64'), fields: FILLED_VALUES }), pages: 1 },
      { name: 'redact', path: '/api/v1/redact', task: 'redact', options: { maxPages: 2000 }, body: body({ pdf, text: ['Dear'], patterns: ['\\d+'] }), pages: 10 },
    );
    if (chosen !== undefined) operations.splice(0, operations.length, ...operations.filter((operation) => chosen.includes(operation.name)));
    for (const operation of operations) {
      await check(server.base, operation);
      step(`${operation.name} through the server, ${connections} connections`);
      onServer.set(operation.name, await measure({ url: server.base + operation.path, method: 'POST', headers: { ...RENDER_HEADERS }, body: operation.body, connections }, settings.warmupSeconds, settings.seconds));
    }
  } finally {
    await server.stop();
  }

  const results: Record<string, unknown> = {};
  for (const operation of operations) {
    step(`${operation.name} on a bare pool`);
    const pool = await barePool(settings, connections, operation.body, { name: operation.task, options: operation.options });
    const figures = onServer.get(operation.name) as LoadFigures;
    results[operation.name] = {
      pagesPerRequest: operation.pages,
      server: figures,
      barePool: pool,
      serverToBarePool: ratio(figures.requestsPerSecond, pool.requestsPerSecond),
      serverPagesPerSecond: figures.requestsPerSecond * operation.pages,
    };
  }

  // The command-line baselines compare merge and extract-text; without both (BENCH_DOCOPS) they are skipped.
  if (results.merge !== undefined && results['extract-text'] !== undefined) await commandLineBaselines(settings, document, results);

  const out = { ...runInfo(settings), connections, results };
  writeFileSync(join(settings.resultsDir, chosen === undefined ? 'docops.json' : `docops-${chosen.join('-')}.json`), `${JSON.stringify(out, null, 2)}\n`);
  for (const [name, result] of Object.entries(results) as Array<[string, Record<string, unknown>]>) {
    const server = result.server as Throughput;
    const pool = result.barePool as Throughput;
    const extra =
      name === 'merge'
        ? `; qpdf CLI ${(result.qpdfCli as Throughput).requestsPerSecond} req/s (ratio ${result.serverToQpdfCli})`
        : name === 'extract-text'
          ? `; pdftotext CLI ${(result.pdftotextCli as Throughput).requestsPerSecond} req/s (ratio ${result.serverToPdftotext})`
          : '';
    process.stdout.write(`${name}: server ${server.requestsPerSecond} req/s (p99 ${server.p99Ms} ms), bare pool ${pool.requestsPerSecond} req/s (ratio ${result.serverToBarePool})${extra}\n`);
  }
}

/** merge beside qpdf and extract-text beside pdftotext, both spawned per request, into `results`. */
async function commandLineBaselines(settings: Settings, document: Buffer, results: Record<string, unknown>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-docops-'));
  try {
    const input = join(dir, 'in.pdf');
    await writeFile(input, document);
    let next = 0;
    step(`qpdf --empty --pages (ten inputs) spawned per request, ${settings.workers} at a time`);
    const qpdf = await warmThenLoop(settings.warmupSeconds, settings.seconds, settings.workers, async () => {
      const output = join(dir, `merged-${next++}.pdf`);
      await run('qpdf', ['--empty', '--pages', ...Array.from({ length: 10 }, () => input), '--', output]);
      await readFile(output);
      await rm(output);
    });
    step(`pdftotext spawned per request, ${settings.workers} at a time`);
    const pdftotext = await warmThenLoop(settings.warmupSeconds, settings.seconds, settings.workers, async () => {
      await run('pdftotext', [input, '-'], { maxBuffer: 64 * 1024 * 1024 });
    });
    const merge = results.merge as { server: Throughput };
    const text = results['extract-text'] as { server: Throughput };
    results.merge = { ...merge, qpdfCli: qpdf, serverToQpdfCli: ratio(merge.server.requestsPerSecond, qpdf.requestsPerSecond) };
    results['extract-text'] = { ...text, pdftotextCli: pdftotext, serverToPdftotext: ratio(text.server.requestsPerSecond, pdftotext.requestsPerSecond) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench docops failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
