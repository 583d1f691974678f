// Latency samples in, figures out. Own samples (not autocannon's histogram)
// are kept by the baselines and the per-status load generator; autocannon
// records whole milliseconds only, these keep microseconds.

export interface Latency {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** A bounded sample store: past `capacity` samples it keeps counting but stops storing (memory stays fixed). */
export class Samples {
  #values: Float64Array;
  #stored = 0;
  #count = 0;

  constructor(capacity = 1 << 20) {
    this.#values = new Float64Array(capacity);
  }

  get count(): number {
    return this.#count;
  }

  add(ms: number): void {
    this.#count += 1;
    if (this.#stored < this.#values.length) this.#values[this.#stored++] = ms;
  }

  latency(): Latency {
    const sorted = this.#values.slice(0, this.#stored).sort();
    return { count: this.#count, p50Ms: round(quantile(sorted, 0.5)), p99Ms: round(quantile(sorted, 0.99)), maxMs: round(sorted.at(-1) ?? 0) };
  }
}

/** Nearest-rank quantile of ascending samples; 0 for none. */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** a / b, rounded; undefined when there is no b to divide by. */
export function ratio(a: number, b: number): number | undefined {
  return b > 0 ? round(a / b, 3) : undefined;
}

/** What every throughput run reports, whatever drove it. */
export interface Throughput {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}
