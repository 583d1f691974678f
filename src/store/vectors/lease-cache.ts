// A bounded cache of things that hold connections (pgvector's pools), least
// recently used first out. Clients choose the keys (an endpoint and its
// credentials), so without a bound every distinct api_key a client sent
// kept a pool, and its idle sockets' bookkeeping, for the life of the
// process. A request takes a lease for as long as it works with an entry:
// an entry evicted while leased is closed when its last lease ends, never
// under a query in flight. Entries whose opening failed are not kept.

export interface LeaseCacheOptions<T> {
  /** Entries kept; past it the least recently used is evicted (closed once unleased). */
  readonly capacity: number;
  readonly close: (value: T) => Promise<void>;
}

interface Entry<T> {
  readonly value: Promise<T>;
  leases: number;
  evicted: boolean;
}

export class LeaseCache<T> {
  /** Insertion order is recency order: a use moves the entry to the end. */
  readonly #entries = new Map<string, Entry<T>>();
  readonly #closing = new Set<Promise<void>>();
  readonly #options: LeaseCacheOptions<T>;

  constructor(options: LeaseCacheOptions<T>) {
    this.#options = options;
  }

  /** Entries kept (leased or not), never more than the capacity. */
  get size(): number {
    return this.#entries.size;
  }

  /** Runs `work` with the entry for `key`, made by `open` if there is none; the lease ends when `work` settles. */
  async use<R>(key: string, open: () => Promise<T>, work: (value: T) => Promise<R>): Promise<R> {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { value: open(), leases: 0, evicted: false };
      const opened = entry;
      // A failed opening is not remembered: the next request tries again.
      opened.value.catch(() => {
        if (this.#entries.get(key) === opened) this.#entries.delete(key);
      });
    } else {
      this.#entries.delete(key);
    }
    this.#entries.set(key, entry);
    entry.leases += 1;
    this.#evict();
    try {
      return await work(await entry.value);
    } finally {
      entry.leases -= 1;
      if (entry.evicted && entry.leases === 0) this.#close(entry);
    }
  }

  /** Closes every entry, leased or not (shutdown: requests are over by then), and waits for evicted ones. */
  async close(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of all) {
      entry.evicted = true;
      this.#close(entry);
    }
    await Promise.all([...this.#closing]);
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#options.capacity) return;
      this.#entries.delete(key);
      entry.evicted = true;
      if (entry.leases === 0) this.#close(entry);
    }
  }

  #close(entry: Entry<T>): void {
    const closing = entry.value.then((value) => this.#options.close(value), () => undefined).catch(() => undefined);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }
}
