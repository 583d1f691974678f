// The capability operations a service would otherwise run by spawning a
// command-line tool per request (`npm run bench:docops`, about a minute):
// - merge: ten 10-page documents into one, against `qpdf --empty --pages`
//   of the same ten files;
// - extract-text: a 10-page document's plain text, against `pdftotext`.
// Server and tool alternate in rounds (interleave.ts), so that the machine's
// noise lands on both sides of every round's ratio. The tool runs as many
// processes at a time as the server has threads, on a file written once,
// with no HTTP, JSON or base64: its best case. The request bodies are
// bench:large's (large-body-operations.ts), and each operation against the
// same task on a bare pool is bench:large's too (its docops group), as are
// the other capability operations.
//
// `npm run bench:docops merge` runs one; writes bench/results/docops[-<names>].json.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stopChildrenOnExit } from './child.js';
import { interleave, type InterleavedRatio, type Side } from './interleave.js';
import { largeBodyOperations } from './large-body-operations.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, renderPages, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { loopSide, serverSide } from './sides.js';

const run = promisify(execFile);
const step = (text: string) => process.stderr.write(`bench docops: ${text}\n`);

/** Each operation's command-line counterpart, run on `input` (the 10-page document) in `dir`. */
const TOOLS: Readonly<Record<string, { readonly name: string; command(input: string, dir: string): Promise<void> }>> = {
  merge: {
    name: 'qpdf --empty --pages (ten inputs)',
    async command(input, dir) {
      const output = join(dir, `merged-${process.hrtime.bigint()}.pdf`);
      await run('qpdf', ['--empty', '--pages', ...Array.from({ length: 10 }, () => input), '--', output]);
      await readFile(output);
      await rm(output);
    },
  },
  'extract-text': {
    name: 'pdftotext',
    async command(input) {
      await run('pdftotext', [input, '-'], { maxBuffer: 64 * 1024 * 1024 });
    },
  },
};

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings: Settings = loadSettings({ BENCH_ROUND_SECONDS: '2', BENCH_WARMUP_SECONDS: '1', ...process.env });
  const connections = saturation(settings);
  const args = process.argv.slice(2);
  const chosen = args.length === 0 ? Object.keys(TOOLS) : args;
  for (const name of chosen) if (TOOLS[name] === undefined) throw new Error(`unknown operation ${name}; one of ${Object.keys(TOOLS).join(', ')}`);
  const server = await startPlaten(settings);
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-docops-'));
  const results: InterleavedRatio[] = [];
  try {
    const input = join(dir, 'in.pdf');
    await writeFile(input, await renderPages(server.base, 10));
    const operations = await largeBodyOperations(server.base, chosen, mkdtempSync(join(tmpdir(), 'platen-bench-attestation-')));
    for (const operation of operations) {
      const tool = TOOLS[operation.name] as (typeof TOOLS)[string];
      const body = operation.bodies()();
      const check = await fetch(server.base + operation.path, { method: 'POST', headers: RENDER_HEADERS, body });
      if (check.status !== 200) throw new Error(`${operation.name} check failed: ${check.status} ${(await check.text()).slice(0, 500)}`);
      const platen: Side = serverSide('Platen', { url: server.base + operation.path, headers: { ...RENDER_HEADERS }, body, connections });
      const cli = loopSide(tool.name, settings.workers, () => tool.command(input, dir));
      step(`${operation.name} against ${tool.name}: ${settings.rounds} interleaved rounds of ${settings.roundSeconds} s, ${connections} connections, ${settings.workers} processes`);
      const ratio = await interleave(operation.name, platen, cli, { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds });
      results.push(ratio);
      process.stdout.write(
        `${operation.name}: Platen ${ratio.aMedian.requestsPerSecond} req/s (p99 ${ratio.aMedian.p99Ms} ms), ${tool.name} ${ratio.bMedian.requestsPerSecond}/s; ` +
          `ratio ${ratio.median} (${ratio.min}-${ratio.max})${ratio.noisy ? ' noisy' : ''}, load ${ratio.load.before} → ${ratio.load.after}\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await server.stop();
  }
  const file = args.length === 0 ? 'docops.json' : `docops-${args.join('-')}.json`;
  writeFileSync(join(settings.resultsDir, file), `${JSON.stringify({ ...runInfo(settings), connections, results }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench docops failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
