// A Map bounded by entry count and by total weight (bytes, characters),
// evicting the oldest insertions first. Worker caches live as long as the
// worker, so a bound by count alone is no bound: 64 cached fonts of up to
// 32 MB each could hold 2 GB.

export class BoundedMap<K, V> {
  readonly #map = new Map<K, V>();
  #weight = 0;

  /**
   * `weigh` must give the same answer for an entry every time it is asked
   * (byte or string lengths); it is asked again on eviction instead of
   * storing a weight per entry.
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly weigh: (key: K, value: V) => number,
    /** Called for every entry that leaves, evicted or deleted. */
    private readonly onRemove?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.#map.size;
  }

  get weight(): number {
    return this.#weight;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Stores the entry, evicting the oldest ones to make room; an entry heavier than the whole bound is not stored. */
  set(key: K, value: V): boolean {
    this.delete(key);
    const weight = this.weigh(key, value);
    if (weight > this.maxWeight) return false;
    while (this.#map.size > 0 && (this.#map.size >= this.maxEntries || this.#weight + weight > this.maxWeight)) {
      this.delete(this.#map.keys().next().value as K);
    }
    this.#map.set(key, value);
    this.#weight += weight;
    return true;
  }

  delete(key: K): boolean {
    if (!this.#map.has(key)) return false;
    const value = this.#map.get(key) as V;
    this.#map.delete(key);
    this.#weight -= this.weigh(key, value);
    this.onRemove?.(key, value);
    return true;
  }
}
