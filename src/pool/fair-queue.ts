// Waiting work kept per client, handed out fairly (issue 9: one client's 16
// heavy requests or 77 jobs must not shut out another client's one). Used by
// the pool for synchronous tasks and by the embedded job runner for jobs.
//
// The next item comes from the waiting client that holds the fewest running
// items per unit of weight, so while others wait no client keeps more than
// its weighted share of the slots. Ties (e.g. one slot, nothing running) go
// by start-time fair queuing (Goyal, Vin & Cheng, SIGCOMM 1996): every pick
// advances the client's virtual time by 1/weight, and a client that comes
// back from idle starts at the current virtual time, not with credit saved
// up while it was away. Equal weights give plain round robin.

export interface FairClient {
  /** Who the work belongs to (a key label). */
  readonly id: string;
  /** Relative share when clients contend; > 0. */
  readonly weight: number;
}

interface ClientState<T> {
  weight: number;
  running: number;
  readonly waiting: T[];
  /** Virtual start time of this client's next pick. */
  tag: number;
  /** Order of first appearance: the last tie-break, so picks are deterministic. */
  readonly order: number;
}

export class FairQueue<T> {
  readonly #clients = new Map<string, ClientState<T>>();
  #virtual = 0;
  #size = 0;
  #arrivals = 0;

  /** Items waiting, over every client. */
  get size(): number {
    return this.#size;
  }

  /** Queues an item at the end of its client's line, or at the front (`front`: an item handed back to wait again). */
  push(client: FairClient, item: T, front = false): void {
    const state = this.#state(client);
    if (state.waiting.length === 0 && state.running === 0) state.tag = Math.max(state.tag, this.#virtual);
    if (front) state.waiting.unshift(item);
    else state.waiting.push(item);
    this.#size += 1;
  }

  /** Takes the next item under fair sharing and counts it as running for its client. */
  next(): { readonly client: string; readonly item: T } | undefined {
    let best: [string, ClientState<T>] | undefined;
    for (const entry of this.#clients) {
      if (entry[1].waiting.length > 0 && (best === undefined || before(entry[1], best[1]))) best = entry;
    }
    if (best === undefined) return undefined;
    const [id, state] = best;
    const item = state.waiting.shift() as T;
    this.#size -= 1;
    state.running += 1;
    this.#virtual = state.tag;
    state.tag += 1 / state.weight;
    return { client: id, item };
  }

  /** A running item of this client ended. */
  finished(client: string): void {
    const state = this.#clients.get(client);
    if (state === undefined) return;
    state.running = Math.max(0, state.running - 1);
    this.#forgetIfIdle(client, state);
  }

  /** Counts an item as running for `client` without it having waited here (it started at once). */
  started(client: FairClient): void {
    const state = this.#state(client);
    if (state.waiting.length === 0 && state.running === 0) state.tag = Math.max(state.tag, this.#virtual);
    state.running += 1;
    this.#virtual = Math.max(this.#virtual, state.tag);
    state.tag += 1 / state.weight;
  }

  /** Removes a waiting item (cancelled, timed out, pushed out); false when it was not waiting. */
  remove(client: string, item: T): boolean {
    const state = this.#clients.get(client);
    const index = state?.waiting.indexOf(item) ?? -1;
    if (state === undefined || index < 0) return false;
    state.waiting.splice(index, 1);
    this.#size -= 1;
    this.#forgetIfIdle(client, state);
    return true;
  }

  /** Each client with work here: its weight, running count and waiting items (oldest first). */
  *clients(): IterableIterator<{ readonly id: string; readonly weight: number; readonly running: number; readonly waiting: readonly T[] }> {
    for (const [id, state] of this.#clients) yield { id, weight: state.weight, running: state.running, waiting: state.waiting };
  }

  /** The client's weight, running count and waiting items, if it has any work here. */
  client(id: string): { readonly weight: number; readonly running: number; readonly waiting: readonly T[] } | undefined {
    return this.#clients.get(id);
  }

  #state(client: FairClient): ClientState<T> {
    let state = this.#clients.get(client.id);
    if (state === undefined) {
      state = { weight: client.weight, running: 0, waiting: [], tag: this.#virtual, order: this.#arrivals++ };
      this.#clients.set(client.id, state);
    }
    // A key file reload may change a client's weight; the newest submission says what it is now.
    state.weight = client.weight;
    return state;
  }

  /** A client with nothing waiting or running is forgotten, so the map holds active clients only. */
  #forgetIfIdle(id: string, state: ClientState<T>): void {
    if (state.running === 0 && state.waiting.length === 0) this.#clients.delete(id);
  }
}

function before<T>(a: ClientState<T>, b: ClientState<T>): boolean {
  const load = a.running / a.weight - b.running / b.weight;
  if (load !== 0) return load < 0;
  if (a.tag !== b.tag) return a.tag < b.tag;
  return a.order < b.order;
}
