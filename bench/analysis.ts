// The analysis operations at saturation (`npm run bench:analysis`, about a
// minute): pages/s of each through the server beside the same task on a
// bare Piscina pool (target ≥ 0.9: the server's framing, auth and pool
// wrapper cost at most a tenth). The input is the business letter of the
// render scenarios, ten pages, rendered by the server itself at start.
// Each analysis operation is one entry of OPERATIONS (forensic-analyze,
// ai-certify, compliance-check, check-accessibility).
//
// Its own script rather than a scenario of bench/run.ts, so that it can run
// alone; it writes bench/results/analysis.json.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskName } from '../workers/protocol.js';
import { measure, type LoadFigures } from './autocannon.js';
import { stopChildrenOnExit } from './child.js';
import { barePool } from './baselines/pool.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, renderPages, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { ratio, type Throughput } from './stats.js';

const step = (text: string) => process.stderr.write(`bench analysis: ${text}\n`);

interface Operation {
  readonly name: string;
  readonly path: string;
  readonly task: TaskName;
  /** What the route passes the task (capability-routes.ts), with the default limits. */
  readonly options: Record<string, unknown>;
}

const READ_OPTIONS = { maxPages: 2000, workBudget: 5_000_000 };

const OPERATIONS: readonly Operation[] = [
  { name: 'forensic-analyze', path: '/api/v1/forensic-analyze', task: 'forensic-analyze', options: READ_OPTIONS },
  // The bare pool's threads generate their own attestation key in a directory of their own: the first request pays for it, as on the server.
  { name: 'ai-certify', path: '/api/v1/ai-certify', task: 'ai-certify', options: { ...READ_OPTIONS, dataDir: mkdtempSync(join(tmpdir(), 'platen-bench-attestation-')) } },
  // The letter claims no PDF/A part, so it is checked as PDF/A-2b: every rule runs, and it fails a few.
  { name: 'compliance-check', path: '/api/v1/compliance-check', task: 'compliance-check', options: {} },
  // The letter is untagged: every rule runs and the content walk visits every operator of every page (each one fails 7.1-3).
  { name: 'check-accessibility', path: '/api/v1/check-accessibility', task: 'check-accessibility', options: {} },
];

/** Pages of the input document. */
const PAGES = 10;

async function check(base: string, operation: Operation, body: Buffer): Promise<void> {
  const response = await fetch(base + operation.path, { method: 'POST', headers: RENDER_HEADERS, body });
  if (response.status !== 200) throw new Error(`${operation.name} check failed: ${response.status} ${(await response.text()).slice(0, 500)}`);
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const only = process.argv.slice(2);
  const operations = only.length === 0 ? OPERATIONS : OPERATIONS.filter((operation) => only.includes(operation.name));
  // Short runs by default: two runs per operation fit in about a minute.
  const settings: Settings = { ...loadSettings({ BENCH_SECONDS: '5', BENCH_WARMUP_SECONDS: '2', ...process.env }) };
  const connections = saturation(settings);
  const server = await startPlaten(settings);
  const onServer = new Map<string, LoadFigures>();
  let body: Buffer;
  try {
    body = Buffer.from(JSON.stringify({ pdf: (await renderPages(server.base, PAGES)).toString('base64') }));
    for (const operation of operations) {
      await check(server.base, operation, body);
      step(`${operation.name} through the server, ${connections} connections`);
      onServer.set(operation.name, await measure({ url: server.base + operation.path, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections }, settings.warmupSeconds, settings.seconds));
    }
  } finally {
    await server.stop();
  }

  const results: Record<string, unknown> = {};
  for (const operation of operations) {
    step(`${operation.name} on a bare pool`);
    const pool = await barePool(settings, connections, body, { name: operation.task, options: operation.options });
    const figures = onServer.get(operation.name) as LoadFigures;
    results[operation.name] = {
      pagesPerRequest: PAGES,
      server: figures,
      barePool: pool,
      serverPagesPerSecond: Math.round(figures.requestsPerSecond * PAGES * 10) / 10,
      barePoolPagesPerSecond: Math.round(pool.requestsPerSecond * PAGES * 10) / 10,
      serverToBarePool: ratio(figures.requestsPerSecond, pool.requestsPerSecond),
    };
  }

  const out = { ...runInfo(settings), connections, results };
  writeFileSync(join(settings.resultsDir, 'analysis.json'), `${JSON.stringify(out, null, 2)}\n`);
  for (const [name, result] of Object.entries(results) as Array<[string, Record<string, unknown>]>) {
    const server = result.server as Throughput;
    process.stdout.write(
      `${name}: server ${result.serverPagesPerSecond} pages/s (${server.requestsPerSecond} req/s, p99 ${server.p99Ms} ms), bare pool ${result.barePoolPagesPerSecond} pages/s (ratio ${result.serverToBarePool})\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench analysis failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
