// The bench's knobs. This is the only bench module that reads BENCH_* and
// MAIN_THREAD_WARMUP_REQUESTS (the same rule src/config.ts follows for the
// server); everything else
// receives the frozen Settings as an argument.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Settings {
  /** Measured seconds per run; every run is preceded by a thrown-away warm-up. */
  readonly seconds: number;
  readonly warmupSeconds: number;
  /**
   * Letters a render server answers before its main thread's CPU is read
   * (warm-up.ts): MAIN_THREAD_WARMUP_REQUESTS, 6,000 (quick mode 1,000).
   */
  readonly steadyWarmupRequests: number;
  /** PLATEN_WORKERS, and the thread count of the bare-pool baseline. */
  readonly workers: number;
  /** PLATEN_MAX_QUEUE; the server's own default is 4 × workers (src/config.ts). */
  readonly maxQueue: number;
  /** PLATEN_LOG_LEVEL of the server under test. */
  readonly logLevel: string;
  /** Interleaved comparisons (interleave.ts): rounds of each side, and seconds per round. */
  readonly rounds: number;
  readonly roundSeconds: number;
  /** BENCH_QUICK=1: shorter runs and rounds, for a look in about three minutes. */
  readonly quick: boolean;
  /** Where <scenario>.json and summary.md go (git-ignored). */
  readonly resultsDir: string;
}

/**
 * The load generator's client (loadgen.ts). `raw`: each connection is a bare
 * keep-alive socket (raw-http.ts) rather than node:http's client, which costs
 * the load generator's process a millisecond or more a request on the two
 * cores the server shares, while a bare pool's side of a ratio has no client
 * at all (bench:large, load 13: 1.3 ms a split, 2.5 ms a fill-form; README
 * "Benchmarks").
 */
export type HttpClient = 'node' | 'raw';

/** Every scenario's client: `raw`, or node:http's with BENCH_HTTP_CLIENT=node (the client of the figures before 2026-11-25). */
export const DEFAULT_CLIENT: HttpClient = process.env.BENCH_HTTP_CLIENT === 'node' ? 'node' : 'raw';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadSettings(env: Readonly<Record<string, string | undefined>> = process.env): Settings {
  const workers = whole(env.BENCH_WORKERS, 2, 'BENCH_WORKERS', 1);
  const logLevel = env.BENCH_LOG_LEVEL ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`BENCH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${logLevel}`);
  const resultsDir = env.BENCH_RESULTS_DIR ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  const rounds = whole(env.BENCH_ROUNDS, 5, 'BENCH_ROUNDS', 1);
  return Object.freeze({
    seconds: positive(env.BENCH_SECONDS, quick ? 3 : 10, 'BENCH_SECONDS'),
    warmupSeconds: positive(env.BENCH_WARMUP_SECONDS, quick ? 1 : 3, 'BENCH_WARMUP_SECONDS'),
    steadyWarmupRequests: whole(env.MAIN_THREAD_WARMUP_REQUESTS, quick ? 1000 : 6000, 'MAIN_THREAD_WARMUP_REQUESTS', 0),
    rounds,
    roundSeconds: positive(env.BENCH_ROUND_SECONDS, quick ? 1 : 2.5, 'BENCH_ROUND_SECONDS'),
    quick,
    workers,
    maxQueue: whole(env.BENCH_MAX_QUEUE, workers * 4, 'BENCH_MAX_QUEUE', 0),
    logLevel,
    resultsDir,
  });
}

function positive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds; got ${value}`);
  return n;
}

function whole(value: string | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}; got ${value}`);
  return n;
}
