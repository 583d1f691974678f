// `make bench`: the built Platen server and its baselines, one run, one
// report. Platen scenarios run first against one server process (overload
// last, so its backlog cannot touch the others); the baselines run after it
// has stopped, so nothing else holds the cores.
import { stopChildrenOnExit } from './child.js';
import { runInfo } from './machine.js';
import { writeResults } from './report.js';
import { engineBaselines, engineOnServer } from './scenarios/engine.js';
import { fontSubsetBaselines, fontSubsetOnServer } from './scenarios/font-subset.js';
import { healthzScenario } from './scenarios/healthz.js';
import { imageCompressBaselines, imageCompressOnServer } from './scenarios/image-compress.js';
import { jobsScenario } from './scenarios/jobs.js';
import { linearizeBaseline, linearizeOnServer } from './scenarios/linearize.js';
import { mixedScenario } from './scenarios/mixed.js';
import { overloadScenario } from './scenarios/overload.js';
import { renderBaselines, renderOnServer, renderRatios, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

const step = (text: string) => process.stderr.write(`bench: ${text}\n`);

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const info = runInfo(settings);
  step(`${info.machine.cpu}, ${info.machine.cores} cores; ${settings.workers} workers; ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per run`);

  const server = await startPlaten(settings);
  step(`Platen server pid ${server.pid} at ${server.base}`);
  let serverRuns;
  try {
    step('scenario 1: healthz throughput');
    const healthz = await healthzScenario(settings, server);
    step('scenario 2: render at saturation');
    const render = await renderOnServer(settings, server);
    step('scenario 4: renders plus healthz probes');
    const mixed = await mixedScenario(settings, server);
    step('render engine documents: letter, custom font, invoice table, HTML article, Unicode');
    const engine = await engineOnServer(settings, server);
    step('image: POST /v1/image/compress, a 3000 x 2000 JPEG to 1200 wide at quality 80');
    const image = await imageCompressOnServer(settings, server);
    step('font subsetting: a different subset of DejaVu Sans per request, then one identical request (cached)');
    const font = await fontSubsetOnServer(settings, server);
    step('jobs: a batch polled to completion, then synchronous renders while a backlog drains');
    const jobs = await jobsScenario(settings, server, render);
    step('linearize: a 50-page PDF through POST /v1/linearize');
    const linearize = await linearizeOnServer(settings, server);
    step('scenario 3: overload, renders arriving at 4× the saturation rate');
    const overload = await overloadScenario(settings, server, render.requestsPerSecond);
    serverRuns = { healthz, render, mixed, overload, engine, jobs, linearize, image, font };
  } finally {
    const code = await server.stop();
    if (code !== 0) step(`the server exited with code ${code}; its last output:\n${server.output().slice(-4000)}`);
  }

  step('scenario 2 baselines: bare pool, in-process, naive node:http');
  const baselines = await renderBaselines(settings);
  step('render engine baselines: bare pool and in-process per document, pdf-lib drawText table');
  const engine = await engineBaselines(settings, serverRuns.engine);
  step('linearize baseline: qpdf --linearize spawned per request');
  const linearize = await linearizeBaseline(settings, serverRuns.linearize);
  step('image baselines: sharp on a bare pool, the vips CLI per request');
  const image = await imageCompressBaselines(settings, serverRuns.image);
  step('font subsetting baselines: bare pool, hb-subset CLI per request');
  const fontSubset = await fontSubsetBaselines(settings, serverRuns.font);
  const summary = writeResults(settings.resultsDir, info, {
    healthz: serverRuns.healthz,
    render: {
      connections: saturation(settings),
      server: serverRuns.render,
      baselines,
      ratios: renderRatios(serverRuns.render, baselines),
    },
    overload: serverRuns.overload,
    mixed: serverRuns.mixed,
    engine,
    jobs: serverRuns.jobs,
    linearize,
    image,
    fontSubset,
  });
  process.stdout.write(`\n${summary}`);
  step(`results in ${settings.resultsDir}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
  // Children are stopped by the exit hook.
  process.exit();
});
