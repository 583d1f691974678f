// The image row of `make bench` on its own, in under a minute
// (`node dist/bench/image-cpu.js`): Platen ÷ sharp on a bare pool fed raw
// bytes, in BENCH_ROUNDS interleaved rounds of BENCH_ROUND_SECONDS, with
// the CPU a request cost on each side (server, its main thread, the HTTP
// client, the baseline) and the CPU ratios with and without the client.
// Prints one JSON object. SERVER_NODE_ARGS (e.g. --trace-gc) is passed to
// the server's node, whose output is then printed at the end.
import { stopChildrenOnExit } from './child.js';
import { compareImageToSharp, sharpPool } from './image-pair.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

stopChildrenOnExit();
const settings = loadSettings();
const nodeArgs = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
const server = await startPlaten(settings, {}, nodeArgs);
const pool = sharpPool(settings);
try {
  const { ratio, cpuPerRequest: cpu } = await compareImageToSharp(settings, server, pool, { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: Math.min(settings.warmupSeconds, 2) });
  const rounds = ratio.rounds.map((r) => r.ratio);
  console.log(JSON.stringify({ median: ratio.median, min: ratio.min, max: ratio.max, rounds, reqPerSecond: { platen: ratio.aMedian.requestsPerSecond, sharp: ratio.bMedian.requestsPerSecond }, load: ratio.load, cpu }, null, 1));
  if (nodeArgs.length > 0) console.log(server.output(0));
} finally {
  await pool.close();
  await server.stop();
}
