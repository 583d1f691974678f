// `npm run build && node dist/bench/admission-sim.js`: the pool's admission
// (src/pool/scheduler.ts, the real class) on a simulated clock, so that a
// change to it can be judged where the shared machine cannot move the
// figure. On two cores at load 14-19 the interleaved overload rounds ranged
// 1.5-34x from round to round (bench/scheduling-rounds.ts): the threads'
// stalls, not the policy, set the p99.
//
// Two threads serve letters whose service times are drawn from a quantile
// table; the figure of issue 14 is computed as the bench does: a closed
// loop of two requests per thread (saturation) against an open loop of
// Poisson arrivals at 4x the closed loop's rate (overload), the admitted
// requests' p99 ÷ the closed loop's p99. Each policy sees the same seeds.
// Prints one JSON object: per distribution and policy, the median ratio
// over the seeds with its range, the admitted rate ÷ the saturation rate,
// and the share refused.
import { Scheduler, type Ticket } from '../src/pool/scheduler.js';
import { round } from './stats.js';
import { medianOf } from './interleave.js';

/** Service-time quantiles (share → ms), read by linear interpolation. */
type Quantiles = ReadonlyArray<readonly [number, number]>;

const DISTRIBUTIONS: Record<string, Quantiles> = {
  // A model of a quiet machine: letters of 2-4 ms, evenly spread.
  steady: [[0, 2], [1, 4]],
  // Measured: the worker's own time (task_ms) of 475 letters on two cores at
  // load 15, 2026-11-25 (the completion log lines of saturation and overload
  // rounds at BENCH_LOG_LEVEL=info): threads off the CPU
  // mid-task for up to 594 ms.
  loaded: [[0, 1], [0.1, 1.72], [0.5, 3.2], [0.75, 10.31], [0.9, 46.42], [0.95, 100.54], [0.98, 178.97], [0.99, 201.44], [1, 593.7]],
};

const POLICIES: Record<string, number | undefined> = {
  'PLATEN_QUEUE_TARGET_MS=10 (the old default)': 10,
  'derived (2 x service time, 1-10 ms)': undefined,
};

const THREADS = 2;
const MAX_QUEUE = 8;
const INTERVAL_MS = 100;
const SIMULATED_MS = 20_000;
const SEEDS = [1, 2, 3, 4, 5, 6, 7];
/** How long a 503 takes to come back to a closed-loop client. */
const REFUSAL_MS = 1;

/** mulberry32: a small seeded generator, so that every policy sees the same draws. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draw(quantiles: Quantiles, u: number): number {
  for (let i = 1; i < quantiles.length; i++) {
    const [q1, v1] = quantiles[i] as readonly [number, number];
    const [q0, v0] = quantiles[i - 1] as readonly [number, number];
    if (u <= q1) return v0 + ((u - q0) / (q1 - q0 || 1)) * (v1 - v0);
  }
  return (quantiles.at(-1) as readonly [number, number])[1];
}

/** Events by time, earliest first (a binary heap). */
class Events {
  readonly #heap: Array<{ at: number; run: () => void }> = [];
  push(at: number, run: () => void): void {
    const heap = this.#heap;
    heap.push({ at, run });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as { at: number }).at <= at) break;
      [heap[i], heap[parent]] = [heap[parent] as { at: number; run: () => void }, heap[i] as { at: number; run: () => void }];
      i = parent;
    }
  }
  pop(): { at: number; run: () => void } | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && (heap[l] as { at: number }).at < (heap[m] as { at: number }).at) m = l;
        if (r < heap.length && (heap[r] as { at: number }).at < (heap[m] as { at: number }).at) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as { at: number; run: () => void }, heap[i] as { at: number; run: () => void }];
        i = m;
      }
    }
    return top;
  }
}

interface Run {
  readonly perSecond: number;
  readonly p99Ms: number;
  readonly refusedShare: number;
}

/** One simulated run: `clients` in a closed loop, or Poisson arrivals at `ratePerSecond`. */
function simulate(quantiles: Quantiles, targetMs: number | undefined, seed: number, load: { clients: number } | { ratePerSecond: number }): Run {
  let now = 0;
  const events = new Events();
  const rng = random(seed);
  const scheduler = new Scheduler({ threads: THREADS, maxQueue: MAX_QUEUE, targetMs, intervalMs: INTERVAL_MS, now: () => now });
  const latencies: number[] = [];
  const closed = 'clients' in load;
  let refused = 0;
  const submit = (then: () => void) => {
    const arrived = now;
    const ticket: Ticket = {
      task: 'render',
      client: { id: 'bench', weight: 1 },
      priority: 'interactive',
      enqueuedAt: 0,
      start: () => {
        const serviceMs = draw(quantiles, rng());
        events.push(now + serviceMs, () => {
          scheduler.finished(ticket, serviceMs);
          latencies.push(now - arrived);
          then();
        });
      },
      evict: () => (refused += 1),
    };
    if (scheduler.submit(ticket) !== undefined) {
      refused += 1;
      // A refused closed-loop client sends again once the 503 is back (~1 ms on loopback).
      if (closed) events.push(now + REFUSAL_MS, then);
    }
  };
  if ('clients' in load) {
    const loop = () => {
      if (now < SIMULATED_MS) submit(loop);
    };
    for (let i = 0; i < load.clients; i++) loop();
  } else {
    const arrive = () => {
      submit(() => undefined);
      const next = now - Math.log(1 - rng()) * (1000 / load.ratePerSecond);
      if (next < SIMULATED_MS) events.push(next, arrive);
    };
    events.push(0, arrive);
  }
  for (let event = events.pop(); event !== undefined; event = events.pop()) {
    now = event.at;
    event.run();
  }
  latencies.sort((x, y) => x - y);
  const p99 = latencies[Math.max(0, Math.ceil(0.99 * latencies.length) - 1)] ?? 0;
  return { perSecond: latencies.length / (SIMULATED_MS / 1000), p99Ms: p99, refusedShare: refused / (refused + latencies.length) };
}

function main(): void {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [distribution, quantiles] of Object.entries(DISTRIBUTIONS)) {
    out[distribution] = {};
    for (const [policy, targetMs] of Object.entries(POLICIES)) {
      const ratios: number[] = [];
      const rates: number[] = [];
      const refused: number[] = [];
      const saturationRefused: number[] = [];
      for (const seed of SEEDS) {
        const saturation = simulate(quantiles, targetMs, seed, { clients: 2 * THREADS });
        const overload = simulate(quantiles, targetMs, seed, { ratePerSecond: 4 * saturation.perSecond });
        ratios.push(overload.p99Ms / saturation.p99Ms);
        saturationRefused.push(saturation.refusedShare);
        rates.push(overload.perSecond / saturation.perSecond);
        refused.push(overload.refusedShare);
      }
      (out[distribution] as Record<string, unknown>)[policy] = {
        overloadP99: { median: medianOf(ratios), min: round(Math.min(...ratios), 3), max: round(Math.max(...ratios), 3) },
        admittedToSaturationRate: medianOf(rates),
        refusedShare: medianOf(refused),
        refusedAtSaturation: medianOf(saturationRefused),
      };
    }
  }
  process.stdout.write(`${JSON.stringify({ threads: THREADS, maxQueue: MAX_QUEUE, intervalMs: INTERVAL_MS, simulatedSeconds: SIMULATED_MS / 1000, seeds: SEEDS.length, figures: out }, null, 2)}\n`);
}

main();
