// A bounded cache of things that hold connections (pgvector's pools), least
// recently used first out. Clients choose the keys (an endpoint and its
// credentials), so without a bound every distinct api_key a client sent
// kept a pool, and its idle sockets' bookkeeping, for the life of the
// process. A request takes a lease for as long as it works with an entry:
// an entry evicted while leased is closed when its last lease ends, never
// under a query in flight, and a request for its key while it drains takes
// it back rather than opening a second one beside it (without that, a key
// evicted and asked for again under load held two pools' connections at
// once: test/rag-pgvector-pools.test.ts saw 4 where 3 keys allow 3). Entries
// whose opening failed are not kept.

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
  /** Evicted entries still leased, by key: closed when their last lease ends, unless taken back first. */
  readonly #draining = new Map<string, Entry<T>>();
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
    let entry = this.#entries.get(key) ?? this.#takeBack(key);
    if (entry === undefined) {
      entry = { value: open(), leases: 0, evicted: false };
      const opened = entry;
      // A failed opening is not remembered: the next request tries again.
      opened.value.catch(() => {
        if (this.#entries.get(key) === opened) this.#entries.delete(key);
        if (this.#draining.get(key) === opened) this.#draining.delete(key);
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
      if (entry.evicted && entry.leases === 0) {
        if (this.#draining.get(key) === entry) this.#draining.delete(key);
        this.#close(entry);
      }
    }
  }

  /** Closes every entry, leased or not (shutdown: requests are over by then), and waits for evicted ones. */
  async close(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    // Draining entries close when their last lease ends, as before shutdown.
    this.#draining.clear();
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
      else this.#draining.set(key, entry);
    }
  }

  /** The evicted, still-leased entry for `key`, back in use (one whose opening failed has left #draining). */
  #takeBack(key: string): Entry<T> | undefined {
    const entry = this.#draining.get(key);
    if (entry === undefined) return undefined;
    this.#draining.delete(key);
    entry.evicted = false;
    return entry;
  }

  #close(entry: Entry<T>): void {
    const closing = entry.value.then((value) => this.#options.close(value), () => undefined).catch(() => undefined);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }
}
