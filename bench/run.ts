// `make bench`: the built Platen server and its baselines, one run, one
// report. Every ratio against a baseline is measured in interleaved rounds
// (pairs.ts, interleave.ts) while the one server runs, so that the noise of
// a shared machine falls on both sides of each ratio; the scenarios that
// have no baseline (healthz, renders with probes, jobs, overload) run once
// each, overload last so that its backlog cannot touch the others; the
// scheduling ratios (overload, jobs, renders with a backlog, each against
// renders at saturation) also run in interleaved rounds
// (scheduling-rounds.ts).
// BENCH_QUICK=1 runs everything shorter (about three minutes).
import { stopChildrenOnExit } from './child.js';
import { runInfo } from './machine.js';
import { writeCharts } from './charts.js';
import { runPairs } from './pairs.js';
import { scalingScenario, SCALING_PAGES } from './scaling.js';
import { schedulingRatios } from './scheduling-rounds.js';
import { writeResults } from './report.js';
import { healthzScenario } from './scenarios/healthz.js';
import { jobsScenario } from './scenarios/jobs.js';
import { mixedScenario } from './scenarios/mixed.js';
import { overloadScenario } from './scenarios/overload.js';
import { renderOnServer, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

const step = (text: string) => process.stderr.write(`bench: ${text}\n`);

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const info = runInfo(settings);
  step(
    `${info.machine.cpu}, ${info.machine.cores} cores; ${settings.workers} workers; ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per run; ` +
      `ratios in ${settings.rounds} interleaved rounds of ${settings.roundSeconds} s${settings.quick ? ' (quick mode)' : ''}`,
  );
  const started = Date.now();
  const server = await startPlaten(settings);
  step(`Platen server pid ${server.pid} at ${server.base}`);
  let onServer;
  try {
    step('scenario 1: healthz throughput');
    const healthz = await healthzScenario(settings, server);
    step('scenario 2: render at saturation (the rate jobs and overload are read against)');
    const render = await renderOnServer(settings, server);
    step('scenario 4: renders plus healthz probes');
    const mixed = await mixedScenario(settings, server);
    step('ratios against baselines, interleaved');
    const pairs = await runPairs(settings, server, { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: Math.min(settings.warmupSeconds, 2) }, step);
    step('jobs: a batch polled to completion, then synchronous renders while a backlog drains');
    const jobs = await jobsScenario(settings, server, render);
    step('scheduling ratios in interleaved rounds: overload, jobs, renders with a backlog');
    const scheduling = await schedulingRatios(settings, server, step);
    step('scenario 3: overload, renders arriving at 4× the saturation rate');
    const overload = await overloadScenario(settings, server);
    onServer = { healthz, render: { connections: saturation(settings), server: render }, mixed, pairs, jobs, scheduling, overload };
  } finally {
    const code = await server.stop();
    if (code !== 0) step(`the server exited with code ${code}; its last output:\n${server.output().slice(-4000)}`);
  }
  // With the server stopped: each point in a process of its own, nothing else of ours on the cores.
  step('scaling: render and linearize time and peak memory by page count');
  const scaling = await scalingScenario(step, settings.quick ? SCALING_PAGES.slice(0, 3) : SCALING_PAGES);
  const summary = writeResults(settings.resultsDir, info, { ...onServer, scaling, minutes: Math.round(((Date.now() - started) / 60_000) * 10) / 10 });
  const charts = await writeCharts(settings.resultsDir, onServer.pairs, scaling);
  step(`charts: ${charts.join(', ')}`);
  process.stdout.write(`\n${summary}`);
  step(`results in ${settings.resultsDir}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
  // Children are stopped by the exit hook.
  process.exit();
});
