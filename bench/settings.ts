// The bench's knobs. This is the only bench module that reads BENCH_*
// (the same rule src/config.ts follows for the server); everything else
// receives the frozen Settings as an argument.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Settings {
  /** Measured seconds per run; every run is preceded by a thrown-away warm-up. */
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** PLATEN_WORKERS, and the thread count of the bare-pool baseline. */
  readonly workers: number;
  /** PLATEN_MAX_QUEUE; the server's own default is 4 × workers (src/config.ts). */
  readonly maxQueue: number;
  /** PLATEN_LOG_LEVEL of the server under test. */
  readonly logLevel: string;
  /** Where <scenario>.json and summary.md go (git-ignored). */
  readonly resultsDir: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadSettings(env: Readonly<Record<string, string | undefined>> = process.env): Settings {
  const workers = whole(env.BENCH_WORKERS, 2, 'BENCH_WORKERS', 1);
  const logLevel = env.BENCH_LOG_LEVEL ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`BENCH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${logLevel}`);
  const resultsDir = env.BENCH_RESULTS_DIR ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  return Object.freeze({
    seconds: positive(env.BENCH_SECONDS, 10, 'BENCH_SECONDS'),
    warmupSeconds: positive(env.BENCH_WARMUP_SECONDS, 3, 'BENCH_WARMUP_SECONDS'),
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
