// The main thread's CPU per request, on its own: `node dist/bench/main-thread.js`
// (`make bench` reads the same figure around its letter rounds, pairs.ts).
// It starts the built server and a floor beside it (baselines/floor-server.ts:
// uWebSockets.js and Piscina with the same render task and threads, nothing
// else), renders the one-page letter on each in interleaved rounds after a
// warm-up, and reads each server's main and worker threads' CPU time around
// its rounds (thread-cpu.ts). It prints, per request, both main threads'
// CPU and Platen's above the floor: the part of the main thread's cost the
// pipeline itself adds, which a change to it must move. Under a minute.
//
// What the floor is made of, from two more floor servers in the same rounds
// (floor-server.ts modes): `threads`, the task on plain worker_threads with
// one message each way (floor minus this: Piscina's own bookkeeping), and
// `http`, uWebSockets.js answering a PDF-sized body with no thread at all
// (threads minus this: the hand-off; this: HTTP and the socket). A request's
// main-thread cost falls as the rate rises (more requests per wake-up of the
// event loop), so `http` is paced at the rate Platen reached in the same
// round; the render servers are driven closed-loop.
//
// Each render server is warmed up with MAIN_THREAD_WARMUP_REQUESTS letters
// (default 6,000; at most 40 s), not the bench's 3 s (warm-up.ts says why).
//
// MAIN_THREAD_RATE=<requests/s> paces the load (per-request cost falls as
// the rate rises, so two builds compare at one rate); MAIN_THREAD_PROFILE=<dir>
// starts Platen with --cpu-prof (one .cpuprofile per thread, at its exit).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, spawnServer, stopChildrenOnExit, type ChildServer } from './child.js';
import { BENCH_KEY, LETTER_JSON } from './documents.js';
import { generateLoad } from './loadgen.js';
import { checkRender, RENDER_PATH, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';
import { cpuSplit, threadTimes } from './thread-cpu.js';
import { warmUpLetters } from './warm-up.js';

const FLOOR = fileURLToPath(new URL('./baselines/floor-server.js', import.meta.url));
const settings = loadSettings();
const rounds = settings.rounds;
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 2);
const rate = process.env.MAIN_THREAD_RATE === undefined ? undefined : Number(process.env.MAIN_THREAD_RATE);
const profileDir = process.env.MAIN_THREAD_PROFILE;
stopChildrenOnExit();

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

interface Round {
  readonly requests: number;
  readonly mainUs: number;
  readonly workersUs: number;
  readonly userUs: number;
  readonly systemUs: number;
}

/** The main thread's user and system CPU milliseconds (proc(5) fields 14 and 15, 10 ms ticks). */
function userAndSystem(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

function load(server: ChildServer, seconds: number, perSecond = rate) {
  const connections = saturation(settings);
  return generateLoad({
    url: server.base + RENDER_PATH,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
    body: LETTER_JSON,
    connections,
    seconds,
    ...(perSecond === undefined ? {} : { intervalMs: (connections * 1000) / perSecond }),
  });
}

async function round(server: ChildServer, perSecond = rate): Promise<Round> {
  const before = threadTimes(server.pid);
  const mainBefore = userAndSystem(server.pid);
  const result = await load(server, roundSeconds, perSecond);
  const mainAfter = userAndSystem(server.pid);
  const split = cpuSplit(server.pid, before, threadTimes(server.pid), settings.workers);
  const requests = result.byStatus['200']?.count ?? 0;
  if (requests === 0 || result.total !== requests) throw new Error(`${server.base}: ${result.total - requests} of ${result.total} answers were not 200`);
  const us = (ms: number) => (ms * 1000) / requests;
  return { requests, mainUs: us(split.mainMs), workersUs: us(split.workersMs), userUs: us(mainAfter.user - mainBefore.user), systemUs: us(mainAfter.system - mainBefore.system) };
}

function summary(rounds: readonly Round[]) {
  const of = (pick: (r: Round) => number) => Math.round(median(rounds.map(pick)));
  return {
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    main_us: of((r) => r.mainUs),
    main_user_us: of((r) => r.userUs),
    main_system_us: of((r) => r.systemUs),
    workers_us: of((r) => r.workersUs),
    main_to_workers_pct: Math.round(median(rounds.map((r) => (100 * r.mainUs) / r.workersUs)) * 10) / 10,
  };
}

async function startFloor(mode: 'pool' | 'threads' | 'http'): Promise<ChildServer> {
  const port = await freePort();
  return spawnServer({ script: FLOOR, port, args: [String(port), String(settings.workers), mode], env: { PATH: process.env.PATH ?? '' } });
}

const platen = await startPlaten(settings, {}, profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`]);
const floors: ChildServer[] = [];
try {
  for (const mode of ['pool', 'threads', 'http'] as const) floors.push(await startFloor(mode));
  const [floor, threads, http] = floors as [ChildServer, ChildServer, ChildServer];
  await checkRender(platen.base);
  await checkRender(floor.base);
  await checkRender(threads.base);
  const warmedUp: number[] = [];
  for (const server of [platen, floor, threads]) warmedUp.push(await warmUpLetters(server, settings));
  await load(http, settings.warmupSeconds, 1000);
  const platenRounds: Round[] = [];
  const floorRounds: Round[] = [];
  const threadsRounds: Round[] = [];
  const httpRounds: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    const platenRound = await round(platen);
    platenRounds.push(platenRound);
    floorRounds.push(await round(floor));
    threadsRounds.push(await round(threads));
    httpRounds.push(await round(http, rate ?? platenRound.requests / roundSeconds));
  }
  const a = summary(platenRounds);
  const b = summary(floorRounds);
  const t = summary(threadsRounds);
  const h = summary(httpRounds);
  console.log(
    JSON.stringify(
      {
        rate: rate ?? 'saturation',
        rounds,
        round_seconds: roundSeconds,
        warm_up_requests: { platen: warmedUp[0], floor: warmedUp[1], threads: warmedUp[2] },
        platen: a,
        floor: b,
        platen_above_floor_us: a.main_us - b.main_us,
        floor_parts: {
          threads: t,
          http: { ...h, workers_us: undefined, main_to_workers_pct: undefined, main_to_platen_workers_pct: Math.round((1000 * h.main_us) / a.workers_us) / 10 },
          piscina_us: b.main_us - t.main_us,
          thread_hand_off_us: t.main_us - h.main_us,
          http_us: h.main_us,
        },
      },
      null,
      1,
    ),
  );
} finally {
  await Promise.all([platen.stop(), ...floors.map((floor) => floor.stop())]);
}
