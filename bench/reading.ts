// The accelerator's PDF-reading routes at saturation (`npm run bench:reading`,
// about a minute): POST /v1/parse (defaults: text blocks, tables, forms) and
// POST /v1/extract-text (spans with font, colour and position) on a 10-page
// document, each through the server and the same task on a bare Piscina pool
// (target ≥ 0.9), and beside `pdftotext` spawned per request on the same
// file (plain text; and `-bbox`, which also gives word positions, the
// closest poppler has to our spans). The CLI baselines read a file written
// once and skip HTTP, JSON and base64: their best case.
//
// The input is the business letter of the render scenarios, ten pages,
// rendered by the server itself at start. Writes bench/results/reading.json.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
import { loadSettings, type Settings } from './settings.js';
import { ratio, type Throughput } from './stats.js';

const run = promisify(execFile);
const step = (text: string) => process.stderr.write(`bench reading: ${text}\n`);
const PAGES = 10;

interface Operation {
  readonly name: string;
  readonly path: string;
  readonly task: TaskName;
  readonly body: Buffer;
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings: Settings = { ...loadSettings({ BENCH_SECONDS: '5', BENCH_WARMUP_SECONDS: '2', ...process.env }) };
  const connections = saturation(settings);
  const readOptions = { maxPages: 2000, workBudget: 20_000_000 };
  const server = await startPlaten(settings);
  const operations: Operation[] = [];
  const onServer = new Map<string, LoadFigures>();
  let document: Buffer;
  try {
    document = await renderPages(server.base, PAGES);
    const pdf_data = document.toString('base64');
    operations.push(
      { name: 'parse', path: '/v1/parse', task: 'parse', body: Buffer.from(JSON.stringify({ pdf_data })) },
      { name: 'extract-text', path: '/v1/extract-text', task: 'extract-text', body: Buffer.from(JSON.stringify({ pdf_data })) },
    );
    for (const operation of operations) {
      const response = await fetch(server.base + operation.path, { method: 'POST', headers: RENDER_HEADERS, body: operation.body });
      if (response.status !== 200) throw new Error(`${operation.name} check failed: ${response.status} ${(await response.text()).slice(0, 300)}`);
      await response.arrayBuffer();
      step(`${operation.name} through the server, ${connections} connections`);
      onServer.set(operation.name, await measure({ url: server.base + operation.path, method: 'POST', headers: { ...RENDER_HEADERS }, body: operation.body, connections }, settings.warmupSeconds, settings.seconds));
    }
  } finally {
    await server.stop();
  }

  const results: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    step(`${operation.name} on a bare pool`);
    const pool = await barePool(settings, connections, operation.body, { name: operation.task, options: readOptions });
    const figures = onServer.get(operation.name) as LoadFigures;
    results[operation.name] = {
      server: figures,
      barePool: pool,
      serverToBarePool: ratio(figures.requestsPerSecond, pool.requestsPerSecond),
      serverPagesPerSecond: Math.round(figures.requestsPerSecond * PAGES),
    };
  }

  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-reading-'));
  try {
    const input = join(dir, 'in.pdf');
    await writeFile(input, document);
    const cli: Record<string, Throughput> = {};
    for (const [name, args] of [
      ['pdftotext', [input, '-']],
      ['pdftotext -bbox', ['-bbox', input, '-']],
    ] as const) {
      step(`${name} spawned per request, ${settings.workers} at a time`);
      cli[name] = await warmThenLoop(settings.warmupSeconds, settings.seconds, settings.workers, async () => {
        await run('pdftotext', [...args], { maxBuffer: 64 * 1024 * 1024 });
      });
    }
    for (const result of Object.values(results)) {
      const server = result.server as Throughput;
      result.pdftotextCli = cli.pdftotext;
      result.pdftotextBboxCli = cli['pdftotext -bbox'];
      result.serverToPdftotext = ratio(server.requestsPerSecond, (cli.pdftotext as Throughput).requestsPerSecond);
      result.serverToPdftotextBbox = ratio(server.requestsPerSecond, (cli['pdftotext -bbox'] as Throughput).requestsPerSecond);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const out = { ...runInfo(settings), connections, pagesPerRequest: PAGES, results };
  writeFileSync(join(settings.resultsDir, 'reading.json'), `${JSON.stringify(out, null, 2)}\n`);
  for (const [name, result] of Object.entries(results)) {
    const server = result.server as Throughput;
    const pool = result.barePool as Throughput;
    process.stdout.write(
      `${name}: server ${server.requestsPerSecond} req/s = ${result.serverPagesPerSecond} pages/s (p99 ${server.p99Ms} ms), bare pool ${pool.requestsPerSecond} req/s (ratio ${result.serverToBarePool}); ` +
        `pdftotext ${(result.pdftotextCli as Throughput).requestsPerSecond} req/s (ratio ${result.serverToPdftotext}), pdftotext -bbox ${(result.pdftotextBboxCli as Throughput).requestsPerSecond} req/s (ratio ${result.serverToPdftotextBbox})\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench reading failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
