// `npm run build && node dist/bench/scheduling.js`: the scheduling figures of
// issue 14 on their own, in interleaved rounds against one server
// (scheduling-rounds.ts): overload admitted p99 ÷ saturation p99 (target
// ≤ 2), jobs/s ÷ synchronous req/s (target ≥ 0.5), synchronous p99 while a
// backlog waits ÷ alone (target ≤ 1.2), and the server CPU a job costs
// against a synchronous render. About a minute with the defaults (5 rounds
// of 2.5 s a side) on a quiet machine; BENCH_ROUNDS and BENCH_ROUND_SECONDS
// change it. Prints one JSON object; `make bench` reports the same rounds.
import { stopChildrenOnExit } from './child.js';
import { verdict } from './interleave.js';
import { schedulingRatios } from './scheduling-rounds.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings = loadSettings();
  const server = await startPlaten(settings);
  try {
    const figures = await schedulingRatios(settings, server, (text) => process.stderr.write(`bench: ${text}\n`));
    const summary = {
      workers: settings.workers,
      rounds: settings.rounds,
      roundSeconds: settings.roundSeconds,
      load: figures.load,
      overloadP99: { ...figures.overloadP99, target: '≤ 2', verdict: verdict(figures.overloadP99, (m) => m <= 2) },
      jobsToSync: { ...figures.jobsToSync, target: '≥ 0.5', verdict: verdict(figures.jobsToSync, (m) => m >= 0.5) },
      backlogP99: { ...figures.backlogP99, target: '≤ 1.2', verdict: verdict(figures.backlogP99, (m) => m <= 1.2) },
      jobCpuToSync: figures.jobCpuToSync,
      overloadWorkerCpu: figures.overloadWorkerCpu,
      overloadP99InServer: figures.overloadP99InServer,
      perRound: figures.rounds,
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
