// Writes bench/results/<scenario>.json (figures plus the run info) and
// bench/results/summary.md (the single-run scenarios, then every ratio
// against a baseline as measured in interleaved rounds, with its spread and
// the load average, and the main thread's CPU per request), and returns the
// summary for printing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadFigures } from './autocannon.js';
import { MAX_SPREAD, verdict, type RatioSpread } from './interleave.js';
import type { RunInfo } from './machine.js';
import type { Comparison, PairsResult } from './pairs.js';
import type { ScalingResult } from './scaling.js';
import type { SchedulingRatios } from './scheduling-rounds.js';
import type { HealthzResult } from './scenarios/healthz.js';
import type { JobsResult } from './scenarios/jobs.js';
import type { MixedResult } from './scenarios/mixed.js';
import type { OverloadResult } from './scenarios/overload.js';
import { ratio, round, type Throughput } from './stats.js';

export interface RenderResult {
  readonly connections: number;
  readonly server: LoadFigures;
}

export interface Results {
  readonly healthz: HealthzResult;
  readonly render: RenderResult;
  readonly overload: OverloadResult;
  readonly mixed: MixedResult;
  readonly pairs: PairsResult;
  readonly jobs: JobsResult;
  readonly scheduling: SchedulingRatios;
  readonly scaling: ScalingResult;
  /** Wall-clock minutes of the whole run. */
  readonly minutes: number;
}

/** Targets from the issues. */
const TARGET_REJECT_P99_MS = 5;
const TARGET_MAIN_THREAD_SHARE = 0.05;

export function writeResults(dir: string, info: RunInfo, results: Results): string {
  for (const [scenario, figures] of Object.entries(results)) {
    if (typeof figures !== 'object') continue;
    writeFileSync(join(dir, `${scenario}.json`), `${JSON.stringify({ scenario, ...info, figures }, null, 2)}\n`);
  }
  const summary = summarize(info, results);
  writeFileSync(join(dir, 'summary.md'), summary);
  return summary;
}

function summarize(info: RunInfo, r: Results): string {
  const { render, overload, mixed } = r;
  const rows: string[][] = [
    row('healthz', 'autocannon', r.healthz.connections, r.healthz.server),
    row('render: Platen server', 'autocannon', render.connections, render.server),
    row('mixed: renders', 'autocannon', mixed.renderConnections, mixed.renders),
    statusRow(`mixed: healthz probes alone (every ${mixed.probeIntervalMs} ms)`, 1, mixed.healthzIdle),
    statusRow('mixed: healthz probes during renders', 1, mixed.healthzUnderRenders),
    statusRow(`overload: 200 admitted (open loop, ${overload.ratePerSecond} arrivals/s)`, overload.connections, overload.admitted),
    statusRow(`overload: 503 refused (open loop, ${overload.ratePerSecond} arrivals/s)`, overload.connections, overload.rejected),
  ];
  const rejectP99 = overload.rejected?.p99Ms;
  const admittedP99 = overload.admitted?.p99Ms;
  const ratios: string[][] = [
    ['overload: share of answers that were 503', percent(overload.rejectedShare), ''],
    ['overload: 503 p50 / p99 at the client (ms)', `${fmt(overload.rejected?.p50Ms)} / ${fmt(rejectP99)}`, `p99 < ${TARGET_REJECT_P99_MS} ms ${mark(rejectP99, (v) => v < TARGET_REJECT_P99_MS)}`],
    [
      'overload: 503 p50 / p99 in the server (its log: handler start to response written, ms)',
      `${fmt(overload.rejectedServerSide?.p50Ms)} / ${fmt(overload.rejectedServerSide?.p99Ms)}`,
      '',
    ],
    [
      'overload: admitted renders / render-at-saturation req/s (saturation measured just before, same client)',
      fmt(overload.admitted === undefined ? undefined : ratio(overload.admitted.perSecond, overload.saturation.perSecond)),
      '',
    ],
    [
      'overload: 200 p99 / render-at-saturation p99 (ms; saturation measured just before, same client)',
      `${fmt(admittedP99)} / ${fmt(overload.saturation.p99Ms)} (× ${fmt(admittedP99 === undefined ? undefined : ratio(admittedP99, overload.saturation.p99Ms))})`,
      'one run: see Scheduling for the interleaved ratio',
    ],
    ['mixed: healthz p99 during renders / alone', `${fmt(mixed.healthzUnderRenders?.p99Ms)} / ${fmt(mixed.healthzIdle?.p99Ms)} ms (× ${fmt(mixed.p99UnderRendersToIdle)})`, ''],
    ['mixed: render req/s / render-only req/s', fmt(ratio(mixed.renders.requestsPerSecond, render.server.requestsPerSecond)), ''],
  ];
  const m = info.machine;
  const main = r.pairs.mainThread;
  return [
    `# Platen benchmark, ${info.timestamp}`,
    '',
    `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${info.node}; ` +
      `PLATEN_WORKERS=${info.workers}, PLATEN_MAX_QUEUE=${info.maxQueue}, PLATEN_LOG_LEVEL=${info.serverLogLevel}; ` +
      `single runs: ${info.warmupSeconds} s warm-up (thrown away), ${info.seconds} s measured; ` +
      `ratios: ${info.rounds} interleaved rounds of ${info.roundSeconds} s a side${info.quick ? ' (quick mode)' : ''}; ${r.minutes} minutes in all.`,
    '',
    '## Ratios against baselines (interleaved rounds)',
    '',
    `Each row ran A and B in alternating rounds (A B A B ...) against one running server. Ratio = A's req/s ÷ B's, per round; the median, ` +
      `its range over the rounds, and the 1-minute load average before and after. A range wider than ±${MAX_SPREAD * 100}% of the median is ` +
      'flagged **noisy** and not read as met or missed.',
    '',
    comparisonsTable(r.pairs.comparisons),
    '',
    cpuPerRequestTable(r.pairs.comparisons),
    '',
    'Charts: [ratios](ratios.svg) (median and range of each comparison), [p99](p99.svg) (both sides of each).',
    '',
    '## Main-thread CPU per request (the one-page letter)',
    '',
    table(
      ['Figure', 'Value', 'Target'],
      [
        ['letter renders while read (the Platen rounds of the first ratio)', String(main.requests), ''],
        ['main thread CPU ÷ worker threads CPU', `${fmt(round(main.mainToWorkers * 100, 2))} %`, `≤ ${TARGET_MAIN_THREAD_SHARE * 100} % ${mark(main.mainToWorkers, (v) => v <= TARGET_MAIN_THREAD_SHARE)}`],
        ['main thread CPU per request', `${fmt(main.mainUsPerRequest)} µs`, ''],
        ['worker threads CPU per request', `${fmt(main.workersUsPerRequest)} µs`, ''],
        ['other threads of the process (V8 platform, libuv), in all', `${fmt(main.otherMs)} ms (main ${fmt(main.mainMs)} ms, workers ${fmt(main.workersMs)} ms)`, ''],
      ],
    ),
    '',
    'Read from /proc/<pid>/task/<tid>/stat (utime + stime, 10 ms ticks) of the server process around each Platen round; the workers are the ' +
      `${info.workers} busiest threads besides the main one (bench/thread-cpu.ts). CPU time is not moved by what else the machine runs.`,
    '',
    '## Scheduling (interleaved rounds)',
    '',
    'Each round runs renders at saturation (two requests per thread, closed loop) and, right after, the three scenarios read against it: ' +
      'an open loop at 4× that round\'s rate, jobs long-polled to completion, renders while a backlog of jobs waits (drained before the next round). ' +
      'Both sides driven by bench/loadgen.ts (bench/scheduling-rounds.ts).',
    '',
    schedulingTable(r.scheduling),
    '',
    '## How cost grows',
    '',
    scalingTable(r.scaling),
    '',
    'Charts: [ms per page](scaling-time.svg), [peak memory](scaling-memory.svg).',
    '',
    '## Single runs',
    '',
    table(['Run', 'Driver', 'Conns', 'req/s', 'p50 ms', 'p99 ms', 'Other answers'], rows),
    '',
    table(['Ratio', 'Value', 'Target'], ratios),
    '',
    '## Jobs',
    '',
    jobsTable(r.jobs),
    '',
    'autocannon rows: req/s counts 2xx answers, latency is of 2xx answers in whole milliseconds (autocannon\'s resolution). ' +
      'Interleaved, task-loop and loadgen rows: microsecond latencies from performance.now(). The load generator runs on the same cores as the server. ' +
      'The overload load is an open loop at 4× the saturation rate, with latency measured from each request\'s scheduled start ' +
      '(no coordinated omission); the in-server 503 figure is the refusal path alone.',
    '',
  ].join('\n');
}

function scalingTable(scaling: ScalingResult): string {
  const rows = scaling.points.map((p) => [p.kind, String(p.pages), fmt(p.ms), fmt(p.msPerPage), fmt(p.peakRssMiB), fmt(p.growthMiB)]);
  const flat = Object.entries(scaling.flatness).map(([kind, value]) => `${kind} ${value}`).join(', ');
  return [
    'One task in a fresh process per point, after a one-page warm-up (bench/scaling-point.ts): `letter` renders the letter repeated, ' +
      '`invoice` the invoice table continued (20 rows a page), `linearize` linearizes the rendered letter. Growth: peak resident set above the warmed-up process.',
    '',
    table(['Kind', 'Pages', 'ms', 'ms per page', 'peak RSS MiB', 'growth MiB'], rows),
    '',
    `Per-page cost at the largest size ÷ at 10 pages (1 = linear): ${flat}.`,
  ].join('\n');
}

function comparisonsTable(comparisons: readonly Comparison[]): string {
  const rows = comparisons.map(({ ratio: c, target, note, cpu }) => {
    const judged = target === undefined ? (c.noisy ? '**noisy**' : '') : `${target.text}: ${verdict(c, target.met) === 'noisy' ? '**noisy**' : `(${verdict(c, target.met)})`}`;
    return [
      c.name,
      `${c.a}: ${fmt(c.aMedian.requestsPerSecond)} req/s, p99 ${fmt(c.aMedian.p99Ms)} ms`,
      `${c.b}: ${fmt(c.bMedian.requestsPerSecond)} req/s, p99 ${fmt(c.bMedian.p99Ms)} ms`,
      `**${fmt(c.median)}**${note === undefined ? '' : ` (${note}: ${fmt(c.median > 0 ? round(1 / c.median, 2) : undefined)}×)`}${cpu === undefined ? '' : `; CPU per task B ÷ A ${fmt(cpu.median)} (${fmt(cpu.min)}-${fmt(cpu.max)})`}`,
      `${fmt(c.min)}-${fmt(c.max)} (±${fmt(round(c.spread * 100, 1))} %)`,
      `${fmt(c.load.before)} → ${fmt(c.load.after)}`,
      judged,
    ];
  });
  return table(['Comparison (A ÷ B)', 'A, median of rounds', 'B, median of rounds', 'Median ratio', 'Range', 'Load avg', 'Target'], rows);
}

/**
 * The comparisons whose CPU a request was read on both sides (cpu-per-request.ts):
 * what the req/s ratio is made of, and the ratio CPU allows with and without
 * the load generator, which shares the cores and costs the baseline nothing.
 */
function cpuPerRequestTable(comparisons: readonly Comparison[]): string {
  const rows = comparisons.flatMap(({ ratio: c, cpuPerRequest: cpu }) =>
    cpu === undefined
      ? []
      : [[c.name, fmt(cpu.serverUs), fmt(cpu.serverMainUs), fmt(cpu.clientUs), fmt(cpu.baselineUs), `**${fmt(cpu.ratioWithClient)}**`, `**${fmt(cpu.ratioWithoutClient)}**`]],
  );
  if (rows.length === 0) return '';
  return [
    'CPU time a request, read around the same rounds (the server process from /proc, every thread; this process with process.cpuUsage: the HTTP client ' +
      'during the server\'s rounds, the bare pool and its feeding loop during the baseline\'s). The CPU ratios are the baseline\'s CPU a request ÷ ' +
      'the server\'s, with and without the client\'s: what the req/s ratio would be if CPU alone decided it; the load moves them far less than req/s.',
    '',
    table(['Comparison', 'server µs', 'of which main thread', 'HTTP client µs', 'baseline µs', 'CPU ratio, client counted', 'CPU ratio, client not counted'], rows),
  ].join('\n');
}

function schedulingTable(s: SchedulingRatios): string {
  const load = `${fmt(s.load.before)} → ${fmt(s.load.after)}`;
  const line = (name: string, spread: RatioSpread | undefined, target?: { text: string; met: (m: number) => boolean }): string[] => {
    if (spread === undefined) return [name, 'n/a (the server logs requests only at BENCH_LOG_LEVEL=info)', '', load, target?.text ?? ''];
    const judged = target === undefined ? (spread.noisy ? '**noisy**' : '') : `${target.text}: ${verdict(spread, target.met) === 'noisy' ? '**noisy**' : `(${verdict(spread, target.met)})`}`;
    return [name, `**${fmt(spread.median)}**`, `${fmt(spread.min)}-${fmt(spread.max)} (±${fmt(round(spread.spread * 100, 1))} %)`, load, judged];
  };
  return table(
    ['Ratio (per round, then the median)', 'Median', 'Range', 'Load avg', 'Target'],
    [
      line('overload: admitted p99 ÷ saturation p99, at the client', s.overloadP99, { text: '≤ 2', met: (m) => m <= 2 }),
      line('overload: the same in the server (its log: handler start to response written)', s.overloadP99InServer, { text: '≤ 2', met: (m) => m <= 2 }),
      line('overload: worker threads\' CPU ÷ theirs at saturation (below 1: the overload side got less of the machine)', s.overloadWorkerCpu),
      line('jobs/s ÷ synchronous req/s', s.jobsToSync, { text: '≥ 0.5', met: (m) => m >= 0.5 }),
      line('synchronous p99 while a backlog waits ÷ alone', s.backlogP99, { text: '≤ 1.2', met: (m) => m <= 1.2 }),
      line('server CPU per job ÷ per synchronous render (all threads, /proc)', s.jobCpuToSync),
    ],
  );
}

function jobsTable(jobs: JobsResult): string {
  return table(
    ['Jobs', 'Value'],
    [
      [`${jobs.jobs} letters as jobs, submitted and long-polled to completion`, `${fmt(jobs.jobsPerSecond)} jobs/s (${fmt(jobs.toSync)} of the synchronous ${fmt(jobs.syncAlone.requestsPerSecond)} req/s); ${jobs.refusedSubmissions} submissions refused (503) and retried`],
      ['long polls', `${jobs.polls} (${fmt(round(jobs.polls / jobs.jobs, 1))} a job)`],
      ['a plain poll, measured apart', `p50 ${fmt(jobs.pollLatency.p50Ms)} ms, p99 ${fmt(jobs.pollLatency.p99Ms)} ms`],
      ['synchronous renders while a backlog drains / alone (req/s)', `${fmt(jobs.syncDuringBacklog.requestsPerSecond)} / ${fmt(jobs.syncAlone.requestsPerSecond)} (× ${fmt(ratio(jobs.syncDuringBacklog.requestsPerSecond, jobs.syncAlone.requestsPerSecond))})`],
      ['synchronous p99 while a backlog drains / alone (ms)', `${fmt(jobs.syncDuringBacklog.p99Ms)} / ${fmt(jobs.syncAlone.p99Ms)} (× ${fmt(ratio(jobs.syncDuringBacklog.p99Ms, jobs.syncAlone.p99Ms))}; one run: see Scheduling for the interleaved ratio); ${jobs.backlogLeft} backlog jobs still unfinished at the end`],
    ],
  );
}

function row(name: string, driver: string, connections: number, figures: Throughput | LoadFigures): string[] {
  const other = 'otherStatuses' in figures ? others(figures) : '';
  return [name, driver, String(connections), fmt(figures.requestsPerSecond), fmt(figures.p50Ms), fmt(figures.p99Ms), other];
}

function statusRow(name: string, connections: number, figures: { perSecond: number; p50Ms: number; p99Ms: number } | undefined): string[] {
  if (figures === undefined) return [name, 'loadgen', String(connections), 'none', '', '', ''];
  return [name, 'loadgen', String(connections), fmt(figures.perSecond), fmt(figures.p50Ms), fmt(figures.p99Ms), ''];
}

function others(figures: LoadFigures): string {
  const parts = Object.entries(figures.otherStatuses).map(([status, count]) => `${count}× ${status}`);
  if (figures.errors > 0) parts.push(`${figures.errors} errors`);
  return parts.join(', ');
}

function table(header: string[], rows: string[][]): string {
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function fmt(value: number | undefined): string {
  return value === undefined ? 'n/a' : String(value);
}

function percent(share: number): string {
  return `${round(share * 100, 1)} %`;
}

function mark(value: number | undefined, ok: (v: number) => boolean): string {
  if (value === undefined) return '';
  return ok(value) ? '(met)' : '(missed)';
}
