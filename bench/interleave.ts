// Ratios that hold on a noisy machine (issue 14): a scenario (A) and its
// baseline (B) run in alternating short rounds, A B A B ..., so that
// whatever else the machine does lands on both sides of each round's ratio
// rather than on one side of the whole comparison. The answer is the median
// of the per-round ratios with their spread (min-max), and the load average
// before and after. A spread wider than ±10% of the median says the machine
// moved more than the ratio can show: the ratio is then flagged, never
// called met or missed.
import { loadavg } from 'node:os';
import { round, type Throughput } from './stats.js';

/** One side of a comparison: warmed once, then run for a round at a time. */
export interface Side {
  readonly name: string;
  warm(seconds: number): Promise<void>;
  run(seconds: number): Promise<Throughput>;
}

export interface Round {
  readonly a: Throughput;
  readonly b: Throughput;
  /** a.requestsPerSecond ÷ b.requestsPerSecond. */
  readonly ratio: number;
}

/** Widest spread (either side of the median, as a share of it) at which a ratio is read as met or missed. */
export const MAX_SPREAD = 0.1;

export interface InterleavedRatio extends RatioSpread {
  readonly name: string;
  readonly a: string;
  readonly b: string;
  readonly rounds: readonly Round[];
  /** Medians of each side's rounds. */
  readonly aMedian: Throughput;
  readonly bMedian: Throughput;
  /** 1-minute load average before the first round and after the last. */
  readonly load: { readonly before: number; readonly after: number };
}

export interface InterleaveOptions {
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly warmupSeconds: number;
}

/** Hooks around each round of a side (e.g. reading the server's or the bare pool's thread CPU times). */
export interface RoundHooks {
  beforeA?(): void;
  afterA?(figures: Throughput): void;
  beforeB?(): void;
  afterB?(figures: Throughput): void;
}

export async function interleave(name: string, a: Side, b: Side, options: InterleaveOptions, hooks: RoundHooks = {}): Promise<InterleavedRatio> {
  const before = loadavg()[0] as number;
  await a.warm(options.warmupSeconds);
  await b.warm(options.warmupSeconds);
  const rounds: Round[] = [];
  for (let i = 0; i < options.rounds; i++) {
    hooks.beforeA?.();
    const ra = await a.run(options.roundSeconds);
    hooks.afterA?.(ra);
    hooks.beforeB?.();
    const rb = await b.run(options.roundSeconds);
    hooks.afterB?.(rb);
    rounds.push({ a: ra, b: rb, ratio: rb.requestsPerSecond > 0 ? round(ra.requestsPerSecond / rb.requestsPerSecond, 3) : 0 });
  }
  return {
    name,
    a: a.name,
    b: b.name,
    rounds,
    ...spreadOf(rounds.map((r) => r.ratio)),
    aMedian: medianThroughput(rounds.map((r) => r.a)),
    bMedian: medianThroughput(rounds.map((r) => r.b)),
    load: { before: round(before, 2), after: round(loadavg()[0] as number, 2) },
  };
}

/** Per-round ratios summed up: their median, range, spread around the median, and whether that spread is too wide to read. */
export interface RatioSpread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** max(max ÷ median − 1, 1 − min ÷ median). */
  readonly spread: number;
  /** The spread is wider than ±MAX_SPREAD: not to be read as met or missed. */
  readonly noisy: boolean;
}

export function spreadOf(ratios: readonly number[]): RatioSpread {
  const median = medianOf(ratios);
  const min = Math.min(...ratios);
  const max = Math.max(...ratios);
  const spread = median > 0 ? round(Math.max(max / median - 1, 1 - min / median), 3) : Number.POSITIVE_INFINITY;
  return { median, min, max, spread, noisy: !(spread <= MAX_SPREAD) };
}

export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  if (sorted.length === 0) return 0;
  const middle = sorted.length >> 1;
  return round(sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2, 3);
}

function medianThroughput(runs: readonly Throughput[]): Throughput {
  return {
    requestsPerSecond: medianOf(runs.map((r) => r.requestsPerSecond)),
    p50Ms: medianOf(runs.map((r) => r.p50Ms)),
    p99Ms: medianOf(runs.map((r) => r.p99Ms)),
    maxMs: Math.max(...runs.map((r) => r.maxMs)),
  };
}

/** Met, missed, or too noisy to say, for a target on the median ratio. */
export function verdict(ratio: RatioSpread, met: (median: number) => boolean): 'met' | 'missed' | 'noisy' {
  if (ratio.noisy) return 'noisy';
  return met(ratio.median) ? 'met' : 'missed';
}
