// `npm run build && node dist/bench/job-cost.js`: where a job's CPU goes
// (issue 14), against a synchronous render of the same letter, in
// alternating rounds (sync, jobs, sync, jobs, ...). Per item it reads the
// server's threads from /proc (thread-cpu.ts: the main thread, the worker
// threads, the rest: libuv's pool that runs the journal's writev and
// fdatasync, V8's platform threads) and this process's own CPU (the client:
// submitting, polling, downloading), and counts the requests the client
// made. CPU is the figure a shared machine moves least; the rates are
// printed beside it. BENCH_ROUNDS (default 5) and BENCH_JOB_COST_JOBS
// (default 200) set the size; with BENCH_CPU_PROF=1 the server writes a V8
// CPU profile of its main thread into BENCH_RESULTS_DIR.
import { performance } from 'node:perf_hooks';
import { stopChildrenOnExit } from './child.js';
import { LETTER_JSON } from './documents.js';
import { spreadOf } from './interleave.js';
import { generateLoad } from './loadgen.js';
import { awaitJobs, submitJobs } from './scenarios/jobs.js';
import { RENDER_HEADERS, RENDER_PATH, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';
import { round } from './stats.js';
import { cpuSplit, threadTimes } from './thread-cpu.js';

interface Cost {
  readonly perSecond: number;
  readonly mainMs: number;
  readonly workersMs: number;
  readonly otherMs: number;
  readonly clientMs: number;
  readonly requests: number;
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const jobs = Number(process.env.BENCH_JOB_COST_JOBS ?? 200);
  const profile = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${settings.resultsDir}`] : [];
  const server = await startPlaten(settings, {}, profile);
  const measure = async (count: () => number, work: () => Promise<number>): Promise<Cost> => {
    const before = threadTimes(server.pid);
    const client = process.cpuUsage();
    const started = performance.now();
    const requests = await work();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(client);
    const split = cpuSplit(server.pid, before, threadTimes(server.pid), settings.workers);
    const n = count();
    return {
      perSecond: round(n / seconds, 1),
      mainMs: round(split.mainMs / n, 3),
      workersMs: round(split.workersMs / n, 3),
      otherMs: round(split.otherMs / n, 3),
      clientMs: round((used.user + used.system) / 1000 / n, 3),
      requests: round(requests / n, 2),
    };
  };
  try {
    let renders = 0;
    const sync = () =>
      measure(
        () => renders,
        async () => {
          const result = await generateLoad({ url: server.base + RENDER_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body: LETTER_JSON, connections: saturation(settings), seconds: settings.roundSeconds });
          renders = result.byStatus['200']?.count ?? 0;
          return result.total;
        },
      );
    const batch = () =>
      measure(
        () => jobs,
        async () => {
          const submitted = await submitJobs(server.base, jobs);
          const awaited = await awaitJobs(server.base, submitted.ids);
          return jobs + submitted.refused + awaited;
        },
      );
    await sync();
    await batch();
    const rounds: Array<{ sync: Cost; jobs: Cost }> = [];
    for (let i = 0; i < settings.rounds; i++) {
      const round = { sync: await sync(), jobs: await batch() };
      rounds.push(round);
      process.stderr.write(`bench: job cost round ${i + 1}/${settings.rounds}: ${JSON.stringify(round)}\n`);
    }
    const total = (c: Cost) => c.mainMs + c.workersMs + c.otherMs;
    const ratioOf = (pick: (c: Cost) => number) => spreadOf(rounds.map((r) => round(pick(r.jobs) / pick(r.sync), 3)));
    process.stdout.write(
      `${JSON.stringify(
        {
          workers: settings.workers,
          jobs,
          rateToSync: ratioOf((c) => c.perSecond),
          serverCpuToSync: ratioOf(total),
          mainCpuToSync: ratioOf((c) => c.mainMs),
          workersCpuToSync: ratioOf((c) => c.workersMs),
          clientCpuToSync: ratioOf((c) => c.clientMs),
          rounds,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
  process.exit();
});
