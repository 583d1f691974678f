// `npm run build && node dist/bench/scheduling.js`: the scheduling scenarios
// on their own, against one server, in about a minute with
// BENCH_SECONDS=5 BENCH_WARMUP_SECONDS=2: renders at saturation (the
// baseline of both), overload at 4x that rate (admitted p99 against the
// saturation p99; target 2x), and jobs (jobs/s against the synchronous rate,
// target 0.5; synchronous p99 while a backlog drains against alone, target
// 1.2x). Prints one JSON object; `make bench` runs the same scenarios in full.
import { stopChildrenOnExit } from './child.js';
import { jobsScenario } from './scenarios/jobs.js';
import { overloadScenario } from './scenarios/overload.js';
import { renderOnServer } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';
import { ratio } from './stats.js';

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const server = await startPlaten(settings);
  try {
    const render = await renderOnServer(settings, server);
    const overload = await overloadScenario(settings, server, render.requestsPerSecond);
    const jobs = await jobsScenario(settings, server, render);
    const summary = {
      workers: settings.workers,
      seconds: settings.seconds,
      saturation: { requestsPerSecond: render.requestsPerSecond, p50Ms: render.p50Ms, p99Ms: render.p99Ms },
      overload: {
        ratePerSecond: overload.ratePerSecond,
        rejectedShare: overload.rejectedShare,
        admittedPerSecond: overload.admitted?.perSecond,
        admittedP50Ms: overload.admitted?.p50Ms,
        admittedP99Ms: overload.admitted?.p99Ms,
        admittedP99ToSaturation: ratio(overload.admitted?.p99Ms ?? 0, render.p99Ms),
        rejectedP99Ms: overload.rejected?.p99Ms,
        rejectedServerSideP99Ms: overload.rejectedServerSide?.p99Ms,
      },
      jobs: {
        jobsPerSecond: jobs.jobsPerSecond,
        toSync: jobs.toSync,
        refusedSubmissions: jobs.refusedSubmissions,
        pollP50Ms: jobs.pollLatency.p50Ms,
        pollP99Ms: jobs.pollLatency.p99Ms,
        syncAloneP99Ms: jobs.syncAlone.p99Ms,
        syncDuringBacklog: { requestsPerSecond: jobs.syncDuringBacklog.requestsPerSecond, p99Ms: jobs.syncDuringBacklog.p99Ms },
        syncP99DuringToAlone: ratio(jobs.syncDuringBacklog.p99Ms, jobs.syncAlone.p99Ms),
        backlogLeft: jobs.backlogLeft,
      },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
  process.exit();
});
