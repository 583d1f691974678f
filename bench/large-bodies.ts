// Operations that carry a large file (issues 11, 12, 14: ≥ 0.9 of a bare
// pool), `npm run bench:large [group|operation ...]`: each operation through
// the server against the same worker task, with the same options and the
// same request bytes, on a bare Piscina pool in this process (the server's
// thread count, as many in flight as the server has connections), in
// interleaved rounds (interleave.ts) so that the machine's noise lands on
// both sides of every round's ratio. Around every round the CPU time of each
// side's threads is read from /proc (thread-cpu.ts): the server's main
// thread and workers, the bare pool's workers and this process's main
// thread, per request. Those figures do not move with the machine's load:
// what the server adds to a request is its main-thread time plus any worker
// time above the bare pool's.
//
// Groups (large-body-operations.ts GROUPS) run in about a minute and a half
// each; with no argument every operation runs (about seven minutes). Writes
// bench/results/large-bodies[-<names>].json and prints a Markdown table.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChildrenOnExit } from './child.js';
import { interleave, verdict, type InterleavedRatio, type Side } from './interleave.js';
import { ALL, GROUPS, largeBodyOperations, type LargeBodyOperation } from './large-body-operations.js';
import { generateLoad } from './loadgen.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { BarePool } from './sides.js';
import { round } from './stats.js';
import { cpuSplit, processTime, threadTimes, type CpuSplit } from './thread-cpu.js';

const step = (text: string) => process.stderr.write(`bench large-bodies: ${text}\n`);

/** CPU of one side's threads over all its measured rounds, per request. */
export interface SideCpu {
  readonly requests: number;
  readonly mainUsPerRequest: number;
  readonly workersUsPerRequest: number;
  readonly otherUsPerRequest: number;
  /** The whole process (threads that ended included), per request. */
  readonly totalUsPerRequest: number;
}

export interface LargeBodyResult {
  readonly name: string;
  readonly bodyBytes: number;
  readonly ratio: InterleavedRatio;
  readonly verdict: 'met' | 'missed' | 'noisy';
  /** The server process's threads during its rounds. */
  readonly server: SideCpu;
  /** This process during the server's rounds: the HTTP client's cost, on the same two cores. */
  readonly client: SideCpu;
  /** This process during the bare pool's rounds: its workers and the main thread that feeds them. */
  readonly pool: SideCpu;
  /** Server worker time ÷ bare pool worker time per request (1 = the same work in the worker). */
  readonly workerTimeRatio: number;
  /** Bare pool process CPU ÷ server process CPU per request: the throughput ratio CPU alone allows, noise aside. */
  readonly cpuRatio: number;
}

const TARGET = 0.9;

/** Counts what a side's rounds cost: the body function is called once per request, and thread CPU is read around each round. */
class Meter {
  #requests = 0;
  #before: ReadonlyMap<number, number> = new Map();
  #processBefore = 0;
  readonly #splits: CpuSplit[] = [];
  #processMs = 0;
  #counted = 0;

  constructor(
    private readonly pid: number,
    private readonly workers: number,
  ) {}

  /** Wraps the body sequence so that each request is counted. */
  counting(next: () => Buffer): () => Buffer {
    return () => {
      this.#requests += 1;
      return next();
    };
  }

  before(): void {
    this.#requests = 0;
    this.#before = threadTimes(this.pid);
    this.#processBefore = processTime(this.pid);
  }

  after(): void {
    this.#splits.push(cpuSplit(this.pid, this.#before, threadTimes(this.pid), this.workers));
    this.#processMs += processTime(this.pid) - this.#processBefore;
    this.#counted += this.#requests;
  }

  /** `requests`: the count to divide by, when another meter counted them (the client's are the server's). */
  figures(requests = this.#counted): SideCpu {
    const n = Math.max(1, requests);
    const sum = (pick: (s: CpuSplit) => number) => this.#splits.reduce((total, s) => total + pick(s), 0);
    const per = (ms: number) => round((ms * 1000) / n, 0);
    return {
      requests,
      mainUsPerRequest: per(sum((s) => s.mainMs)),
      workersUsPerRequest: per(sum((s) => s.workersMs)),
      // Threads that ended during a round (libvips's) count here and not in `main` or `workers`.
      otherUsPerRequest: per(this.#processMs - sum((s) => s.mainMs + s.workersMs)),
      totalUsPerRequest: per(this.#processMs),
    };
  }
}

function serverSide(base: string, operation: LargeBodyOperation, connections: number, body: () => Buffer): Side {
  const once = async (seconds: number) => {
    const result = await generateLoad({ url: base + operation.path, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections, seconds });
    const ok = result.byStatus['200'];
    const others = Object.keys(result.byStatus).filter((status) => status !== '200');
    // Anything but 200 would make the request count (and so the CPU per request) wrong.
    if (ok === undefined || others.length > 0 || result.errors > 0) {
      throw new Error(`${operation.name}: the server answered ${JSON.stringify(result.byStatus).slice(0, 300)} with ${result.errors} errors`);
    }
    return { requestsPerSecond: ok.perSecond, p50Ms: ok.p50Ms, p99Ms: ok.p99Ms, maxMs: ok.maxMs };
  };
  return { name: 'Platen', warm: async (seconds) => void (await once(seconds)), run: once };
}

async function check(base: string, operation: LargeBodyOperation): Promise<void> {
  const response = await fetch(base + operation.path, { method: 'POST', headers: RENDER_HEADERS, body: operation.bodies()() });
  if (response.status !== 200) throw new Error(`${operation.name} check failed: ${response.status} ${(await response.text()).slice(0, 500)}`);
}

function chosenOperations(args: readonly string[]): string[] {
  if (args.length === 0) return [...ALL];
  return [...new Set(args.flatMap((arg) => GROUPS[arg] ?? [arg]))];
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  // Warm-up as long as the other benches' (3 s, settings.ts), not 1 s: at the
  // few dozen requests a second of split or fill-form, V8 optimises the
  // server's request path only after hundreds of requests. The server's main
  // thread per split, in 8 s stretches of one run (load 24): 746, 656, 611,
  // 474, 477 µs; a 1 s warm-up measured the first of those.
  const settings: Settings = loadSettings({ BENCH_ROUND_SECONDS: '2', BENCH_WARMUP_SECONDS: '3', ...process.env });
  const connections = saturation(settings);
  const chosen = chosenOperations(process.argv.slice(2));
  const server = await startPlaten(settings);
  const pool = new BarePool(settings);
  const results: LargeBodyResult[] = [];
  try {
    const operations = await largeBodyOperations(server.base, chosen, mkdtempSync(join(tmpdir(), 'platen-bench-attestation-')));
    for (const operation of operations) {
      await check(server.base, operation);
      const onServer = new Meter(server.pid, settings.workers);
      const client = new Meter(process.pid, settings.workers);
      const onPool = new Meter(process.pid, settings.workers);
      const serverBodies = onServer.counting(operation.bodies());
      const poolBodies = onPool.counting(operation.bodies());
      step(`${operation.name} (${operation.bodyBytes} bytes a request): ${settings.rounds} interleaved rounds of ${settings.roundSeconds} s, ${connections} in flight`);
      const ratio = await interleave(
        operation.name,
        serverSide(server.base, operation, connections, serverBodies),
        pool.side('bare pool', connections, poolBodies, operation.task, operation.options),
        { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds },
        {
          beforeA: () => (onServer.before(), client.before()),
          afterA: () => (onServer.after(), client.after()),
          beforeB: () => onPool.before(),
          afterB: () => onPool.after(),
        },
      );
      const serverCpu = onServer.figures();
      const poolCpu = onPool.figures();
      const result: LargeBodyResult = {
        name: operation.name,
        bodyBytes: operation.bodyBytes,
        ratio,
        verdict: verdict(ratio, (median) => median >= TARGET),
        server: serverCpu,
        // The client's request count is the server's (the same rounds).
        client: client.figures(serverCpu.requests),
        pool: poolCpu,
        workerTimeRatio: round(serverCpu.workersUsPerRequest / Math.max(1, poolCpu.workersUsPerRequest), 3),
        cpuRatio: round(poolCpu.totalUsPerRequest / Math.max(1, serverCpu.totalUsPerRequest), 3),
      };
      results.push(result);
      step(`  ratio ${ratio.median} (${ratio.min}-${ratio.max}), load ${ratio.load.before} → ${ratio.load.after}; main ${serverCpu.mainUsPerRequest} µs/request, CPU ratio ${result.cpuRatio}`);
    }
  } finally {
    await pool.close();
    await server.stop();
  }
  const file = chosen.length === ALL.length ? 'large-bodies.json' : `large-bodies-${process.argv.slice(2).join('-')}.json`;
  writeFileSync(join(settings.resultsDir, file), `${JSON.stringify({ ...runInfo(settings), connections, results }, null, 2)}\n`);
  process.stdout.write(table(results));
}

export function table(results: readonly LargeBodyResult[]): string {
  const rows = results.map((r) =>
    [
      r.name,
      `${round(r.bodyBytes / 1024, 0)} KiB`,
      `**${r.ratio.median}** (${r.ratio.min}-${r.ratio.max}) ${r.verdict}`,
      `${r.ratio.aMedian.requestsPerSecond} / ${r.ratio.bMedian.requestsPerSecond}`,
      `${r.ratio.load.before} → ${r.ratio.load.after}`,
      r.server.mainUsPerRequest,
      `${r.server.totalUsPerRequest} / ${r.pool.totalUsPerRequest}`,
      r.cpuRatio,
      r.client.totalUsPerRequest,
    ].join(' | '),
  );
  return [
    '| operation | body | ratio: median (range) | req/s Platen / pool | load | server main thread µs/req | process CPU µs/req: server / pool | CPU ratio (pool ÷ server) | HTTP client µs/req |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    '',
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench large-bodies failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
