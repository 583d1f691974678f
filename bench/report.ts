// Writes bench/results/<scenario>.json (figures plus the run info) and
// bench/results/summary.md (one table of figures, one of ratios and
// targets), and returns the summary for printing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadFigures } from './autocannon.js';
import type { RunInfo } from './machine.js';
import type { EngineResult } from './scenarios/engine.js';
import type { FontSubsetResult } from './scenarios/font-subset.js';
import type { HealthzResult } from './scenarios/healthz.js';
import type { ImageCompressResult } from './scenarios/image-compress.js';
import type { JobsResult } from './scenarios/jobs.js';
import type { LinearizeResult } from './scenarios/linearize.js';
import type { MixedResult } from './scenarios/mixed.js';
import type { OverloadResult } from './scenarios/overload.js';
import type { RenderBaselines, RenderRatios } from './scenarios/render.js';
import { ratio, round, type Throughput } from './stats.js';

export interface RenderResult {
  readonly connections: number;
  readonly server: LoadFigures;
  readonly baselines: RenderBaselines;
  readonly ratios: RenderRatios;
}

export interface Results {
  readonly healthz: HealthzResult;
  readonly render: RenderResult;
  readonly overload: OverloadResult;
  readonly mixed: MixedResult;
  readonly engine: EngineResult;
  readonly jobs: JobsResult;
  readonly linearize: LinearizeResult;
  readonly image: ImageCompressResult;
  readonly fontSubset: FontSubsetResult;
}

/** Targets from the issues. */
const TARGET_SERVER_TO_POOL = 0.9;
const TARGET_TABLE_SPEEDUP = 3;
const TARGET_CUSTOM_FONT_COST = 1.5;
const TARGET_REJECT_P99_MS = 5;

export function writeResults(dir: string, info: RunInfo, results: Results): string {
  for (const [scenario, figures] of Object.entries(results)) {
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
    row('render: (a) bare Piscina pool, no HTTP', 'task loop', render.connections, render.baselines.barePool),
    row('render: (b) in-process, one thread', 'task loop', 1, render.baselines.inProcess),
    row('render: (c) naive node:http, main thread', 'autocannon', render.connections, render.baselines.naiveHttp),
    row('mixed: renders', 'autocannon', mixed.renderConnections, mixed.renders),
    statusRow(`mixed: healthz probes alone (every ${mixed.probeIntervalMs} ms)`, 1, mixed.healthzIdle),
    statusRow('mixed: healthz probes during renders', 1, mixed.healthzUnderRenders),
    statusRow(`overload: 200 admitted (open loop, ${overload.ratePerSecond} arrivals/s)`, overload.connections, overload.admitted),
    statusRow(`overload: 503 refused (open loop, ${overload.ratePerSecond} arrivals/s)`, overload.connections, overload.rejected),
  ];
  const rejectP99 = overload.rejected?.p99Ms;
  const admittedP99 = overload.admitted?.p99Ms;
  const ratios: string[][] = [
    ['Platen render / (a) bare pool', fmt(render.ratios.serverToBarePool), `≥ ${TARGET_SERVER_TO_POOL} ${mark(render.ratios.serverToBarePool, (v) => v >= TARGET_SERVER_TO_POOL)}`],
    ['Platen render / (b) in-process one thread', fmt(render.ratios.serverToInProcess), ''],
    ['Platen render / (c) naive node:http', fmt(render.ratios.serverToNaiveHttp), ''],
    ['overload: share of answers that were 503', percent(overload.rejectedShare), ''],
    ['overload: 503 p50 / p99 at the client (ms)', `${fmt(overload.rejected?.p50Ms)} / ${fmt(rejectP99)}`, `p99 < ${TARGET_REJECT_P99_MS} ms ${mark(rejectP99, (v) => v < TARGET_REJECT_P99_MS)}`],
    [
      'overload: 503 p50 / p99 in the server (its log: handler start to response written, ms)',
      `${fmt(overload.rejectedServerSide?.p50Ms)} / ${fmt(overload.rejectedServerSide?.p99Ms)}`,
      '',
    ],
    ['overload: admitted renders / render-at-saturation req/s', fmt(overload.admitted === undefined ? undefined : ratio(overload.admitted.perSecond, render.server.requestsPerSecond)), ''],
    [
      'overload: 200 p99 / render-at-saturation p99 (ms)',
      `${fmt(admittedP99)} / ${fmt(render.server.p99Ms)} (× ${fmt(admittedP99 === undefined ? undefined : ratio(admittedP99, render.server.p99Ms))})`,
      '',
    ],
    ['mixed: healthz p99 during renders / alone', `${fmt(mixed.healthzUnderRenders?.p99Ms)} / ${fmt(mixed.healthzIdle?.p99Ms)} ms (× ${fmt(mixed.p99UnderRendersToIdle)})`, ''],
    ['mixed: render req/s / render-only req/s', fmt(ratio(mixed.renders.requestsPerSecond, render.server.requestsPerSecond)), ''],
  ];
  const m = info.machine;
  return [
    `# Platen benchmark, ${info.timestamp}`,
    '',
    `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${info.node}; ` +
      `PLATEN_WORKERS=${info.workers}, PLATEN_MAX_QUEUE=${info.maxQueue}, PLATEN_LOG_LEVEL=${info.serverLogLevel}; ` +
      `each run: ${info.warmupSeconds} s warm-up (thrown away), ${info.seconds} s measured.`,
    '',
    table(['Run', 'Driver', 'Conns', 'req/s', 'p50 ms', 'p99 ms', 'Other answers'], rows),
    '',
    table(['Ratio', 'Value', 'Target'], ratios),
    '',
    '## Jobs',
    '',
    jobsTable(r.jobs),
    '',
    '## Render engine documents',
    '',
    engineTables(r.engine),
    '',
    '## Linearization',
    '',
    linearizeTable(r.linearize),
    '',
    '## Image compression',
    '',
    imageTables(r.image),
    '',
    '## Font subsetting',
    '',
    fontSubsetTable(r.fontSubset),
    '',
    'autocannon rows: req/s counts 2xx answers, latency is of 2xx answers in whole milliseconds (autocannon\'s resolution). ' +
      'Task-loop and loadgen rows: microsecond latencies from performance.now(). The load generator runs on the same cores as the server. ' +
      'The overload load is an open loop at 4× the saturation rate, with latency measured from each request\'s scheduled start ' +
      '(no coordinated omission); the in-server 503 figure is the refusal path alone.',
    '',
  ].join('\n');
}

function jobsTable(jobs: JobsResult): string {
  return table(
    ['Jobs', 'Value'],
    [
      [`${jobs.jobs} letters as jobs, submitted and long-polled to completion`, `${fmt(jobs.jobsPerSecond)} jobs/s (${fmt(jobs.toSync)} of the synchronous ${fmt(jobs.syncAlone.requestsPerSecond)} req/s); ${jobs.refusedSubmissions} submissions refused (503) and retried`],
      ['long polls', `${jobs.polls} (${fmt(round(jobs.polls / jobs.jobs, 1))} a job)`],
      ['a plain poll, measured apart', `p50 ${fmt(jobs.pollLatency.p50Ms)} ms, p99 ${fmt(jobs.pollLatency.p99Ms)} ms`],
      ['synchronous renders while a backlog drains / alone (req/s)', `${fmt(jobs.syncDuringBacklog.requestsPerSecond)} / ${fmt(jobs.syncAlone.requestsPerSecond)} (× ${fmt(ratio(jobs.syncDuringBacklog.requestsPerSecond, jobs.syncAlone.requestsPerSecond))})`],
      ['synchronous p99 while a backlog drains / alone (ms)', `${fmt(jobs.syncDuringBacklog.p99Ms)} / ${fmt(jobs.syncAlone.p99Ms)} (× ${fmt(ratio(jobs.syncDuringBacklog.p99Ms, jobs.syncAlone.p99Ms))}; target ≤ 1.2); ${jobs.backlogLeft} backlog jobs still unfinished at the end`],
    ],
  );
}

function linearizeTable(l: LinearizeResult): string {
  return table(
    ['Linearization', 'Value'],
    [
      ['input', `${l.pages}-page PDF from the render route, ${l.pdfBytes} bytes (${l.linearizedBytes} linearized)`],
      [`Platen POST /v1/linearize (autocannon, ${l.connections} conns)`, `${fmt(l.server.requestsPerSecond)} req/s, p50 ${fmt(l.server.p50Ms)} ms, p99 ${fmt(l.server.p99Ms)} ms ${others(l.server)}`.trim()],
      [`qpdf --linearize CLI spawned per request (${l.cliConcurrency} at a time, no HTTP)`, `${fmt(l.cli.requestsPerSecond)}/s, p50 ${fmt(l.cli.p50Ms)} ms, p99 ${fmt(l.cli.p99Ms)} ms`],
      ['Platen / CLI', fmt(l.serverToCli)],
    ],
  );
}

function imageTables(image: ImageCompressResult): string {
  const runs = [
    row('Platen POST /v1/image/compress', 'autocannon', image.connections, image.server),
    row('(a) sharp on a bare Piscina pool, raw bytes', 'task loop', image.connections, image.sharpPool),
    image.vipsCli === undefined ? ['(b) vips CLI, a process per request', 'task loop', String(image.connections), 'skipped', '', '', ''] : row('(b) vips CLI, a process per request', 'task loop', image.connections, image.vipsCli),
  ];
  return [
    `A ${image.inputBytes}-byte 3000 x 2000 JPEG to 1200 x 800 at quality 80 (${image.outputBytes} bytes out). (b): ${image.vipsNote}.`,
    '',
    table(['Run', 'Driver', 'Conns', 'req/s', 'p50 ms', 'p99 ms', 'Other answers'], runs),
    '',
    table(
      ['Ratio', 'Value'],
      [
        ['Platen / (a) bare sharp pool', fmt(image.serverToSharpPool)],
        ['Platen / (b) vips CLI per request', fmt(image.serverToVipsCli)],
      ],
    ),
  ].join('\n');
}

function fontSubsetTable(font: FontSubsetResult): string {
  const n = font.codepointsPerRequest;
  const loop = (name: string, connections: number, figures: Throughput | undefined) =>
    figures === undefined ? [name, 'task loop', String(connections), 'n/a (hb-subset not installed)', '', ''] : [name, 'task loop', String(connections), fmt(figures.requestsPerSecond), fmt(figures.p50Ms), fmt(figures.p99Ms)];
  return [
    table(
      ['Run', 'Driver', 'In flight', 'req/s', 'p50 ms', 'p99 ms'],
      [
        loop(`Platen /v1/font/subset, DejaVu Sans to ${n} code points, a different set each request`, font.connections, font.uncached),
        loop('Platen, one identical request (answered from the worker cache)', font.connections, font.cached),
        loop('(a) bare Piscina pool, same task and requests, no HTTP', font.connections, font.barePool),
        loop('(b) Debian hb-subset CLI spawned per request', font.connections, font.cli),
      ],
    ),
    '',
    table(
      ['Ratio', 'Value', 'Target'],
      [
        ['Platen font subset / (a) bare pool', fmt(font.serverToPool), ''],
        ['Platen font subset / (b) hb-subset CLI per request', fmt(font.serverToCli), ''],
        ['Platen cached / uncached', fmt(ratio(font.cached.requestsPerSecond, font.uncached.requestsPerSecond)), ''],
      ],
    ),
  ].join('\n');
}

function engineTables(engine: EngineResult): string {
  const rows = engine.documents.map((d) => [
    d.name,
    fmt(d.inProcess.requestsPerSecond),
    fmt(d.barePool.requestsPerSecond),
    fmt(d.server.requestsPerSecond),
    `${fmt(d.serverToPool)} ${mark(d.serverToPool, (v) => v >= TARGET_SERVER_TO_POOL)}`,
    fmt(d.server.p99Ms),
  ]);
  const targets = [
    ['invoice: engine ÷ pdf-lib drawText per cell (one thread, renders/s)', `${fmt(engine.tableSpeedup)} (naive: ${fmt(engine.naiveTable.requestsPerSecond)}/s)`, `≥ ${TARGET_TABLE_SPEEDUP} ${mark(engine.tableSpeedup, (v) => v >= TARGET_TABLE_SPEEDUP)}`],
    ['letter: custom font ÷ standard font time (one thread, font cached)', fmt(engine.customFontCost), `≤ ${TARGET_CUSTOM_FONT_COST} ${mark(engine.customFontCost, (v) => v <= TARGET_CUSTOM_FONT_COST)}`],
  ];
  return [
    table(['Document', 'in-process renders/s (1 thread)', 'bare pool req/s', 'Platen req/s', 'Platen / bare pool', 'Platen p99 ms'], rows),
    '',
    table(['Engine target', 'Value', 'Target'], targets),
  ].join('\n');
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
