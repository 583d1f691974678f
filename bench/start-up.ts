// What a default server (no Redis, no metrics, no vector store used) pays
// to start: `node dist/bench/start-up.js [<other checkout> ...]`. Each round
// starts every build's dist/src/main.js in turn (interleaved, so the
// machine's load falls on all of them alike), with one worker thread, and
// reads, once the first GET /healthz has answered 200:
//
// - ms from spawn to that 200 (wall clock: moves with the load);
// - the main thread's CPU ms until then (/proc/<pid>/task/<pid>/stat, which
//   the load does not move; it includes loading every module the main
//   thread imports, and not the worker thread's);
// - the process's resident memory (VmRSS) then, the worker's included.
//
// With no argument it measures this checkout alone; give the root of another
// built checkout (e.g. a copy of main) to compare. STARTUP_ROUNDS (5) rounds.
// About a minute for two builds at load 20 on 2 shared cores (a start took 5-7 s there).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BENCH_KEY_ENTRY } from './documents.js';
import { threadTimes } from './thread-cpu.js';

const THIS_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 5);
const START_TIMEOUT_MS = 30_000;

interface Start {
  readonly firstOkMs: number;
  readonly mainCpuMs: number;
  readonly rssMb: number;
}

/** Starts the build at `root`, waits for its first 200, reads the figures, stops it. */
async function startOnce(root: string): Promise<Start> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-startup-'));
  const began = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    env: { PATH: process.env.PATH ?? '', PLATEN_PORT: '0', PLATEN_WORKERS: '1', PLATEN_LOG_LEVEL: 'info', PLATEN_API_KEYS: BENCH_KEY_ENTRY, PLATEN_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    const port = await announcedPort(child.stdout, exited);
    const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
    await answer.arrayBuffer();
    const firstOkMs = performance.now() - began;
    if (answer.status !== 200) throw new Error(`GET /healthz answered ${answer.status}`);
    const pid = child.pid ?? -1;
    const mainCpuMs = threadTimes(pid).get(pid) ?? Number.NaN;
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
    return { firstOkMs, mainCpuMs, rssMb: rssKb / 1024 };
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The port of main.ts's "listening" line; rejects if the process ends or takes too long first. */
function announcedPort(output: NodeJS.ReadableStream, exited: Promise<void>): Promise<number> {
  const lines = createInterface({ input: output });
  return new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "listening" line within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    void exited.then(() => fail(new Error('the server exited before listening')));
    lines.on('line', (line) => {
      if (!line.includes('"msg":"listening"')) return;
      clearTimeout(timer);
      done(Number((JSON.parse(line) as { port: number }).port));
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function main(): Promise<void> {
  const roots = [...process.argv.slice(2).map((root) => resolve(root)), THIS_ROOT];
  const starts = new Map<string, Start[]>(roots.map((root) => [root, []]));
  // One unmeasured start each: the first reads every file from disk.
  for (const root of roots) await startOnce(root);
  for (let round = 0; round < ROUNDS; round++) {
    for (const root of roots) starts.get(root)?.push(await startOnce(root));
  }
  const rows = roots.map((root) => {
    const of = starts.get(root) ?? [];
    return {
      build: root === THIS_ROOT ? `${root} (this)` : root,
      first_200_ms: Math.round(median(of.map((s) => s.firstOkMs))),
      main_thread_cpu_ms: Math.round(median(of.map((s) => s.mainCpuMs))),
      rss_mb: Math.round(median(of.map((s) => s.rssMb)) * 10) / 10,
      main_thread_cpu_ms_range: [Math.min(...of.map((s) => s.mainCpuMs)), Math.max(...of.map((s) => s.mainCpuMs))],
    };
  });
  console.log(JSON.stringify({ rounds: ROUNDS, workers: 1, load: readFileSync('/proc/loadavg', 'latin1').split(' ').slice(0, 3).join(' '), medians: rows }, null, 2));
}

await main();
