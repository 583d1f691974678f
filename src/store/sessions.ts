// Sessions: a document kept open across calls. The embedded store keeps
// them in memory (they are short-lived by design: PLATEN_SESSION_IDLE_S);
// the multi-node mode keeps them in Redis behind the same interface. Every
// change is checked and applied in one step (a Lua script in Redis), so two
// adds racing on two nodes cannot overrun the limits or revive a session.
//
// A client's active-session maximum is held the same way. Creating a session
// awaits a worker (its settings are validated first), so counting and then
// creating let concurrent creations all pass the count: five at once made
// five sessions for a maximum of two. Instead a creation reserves its place
// (count and take, in one step) before it awaits anything, and the creation
// fills that place or gives it back. A reservation whose node died lapses
// after its lease.
//
// A render is terminal, and exactly one render of a session may run: it
// claims the session (active → rendering, compare-and-set) before it starts,
// and ends the claim as `rendered` when the PDF is made or back to `active`
// when it failed (worker error, timeout, the client gone), so a failed render
// may be retried. A claim whose node died lapses after its lease.
import { randomUUID } from 'node:crypto';

/** `rendering` is internal: the API shows such a session as `active` (the spec's three states). */
export type SessionStatus = 'active' | 'rendering' | 'rendered' | 'expired';

export interface SessionRecord {
  readonly id: string;
  readonly owner: string;
  readonly status: SessionStatus;
  readonly documentId: string;
  readonly pageSize: string;
  readonly orientation: string;
  readonly createdAt: string;
  readonly lastActivityAt: string;
  readonly operationCount: number;
  /** Total bytes of the operations, bounded so that the replayed request fits a request body. */
  readonly bytes: number;
  /** The creation's `metadata` and `output` (RenderRequest fields), as validated JSON text: the render replays them. */
  readonly metadata?: string;
  readonly output?: string;
}

export interface SessionLimits {
  readonly maxOperations: number;
  readonly maxBytes: number;
}

export type AppendResult =
  | { readonly kind: 'ok'; readonly session: SessionRecord }
  | { readonly kind: 'not-active'; readonly status: SessionStatus }
  | { readonly kind: 'full' }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'gone' };

export type RenderClaim =
  | { readonly kind: 'ok'; readonly session: SessionRecord; readonly token: string }
  | { readonly kind: 'not-active'; readonly status: SessionStatus }
  | { readonly kind: 'gone' };

/** A place below the client's maximum, held for one session id; or the count that filled them all. */
export type Reservation = { readonly kind: 'ok' } | { readonly kind: 'full'; readonly active: number };

/** How a claimed render ended: `rendered` (terminal) or `active` again (it failed; the session may render later). */
export type RenderEnd = 'rendered' | 'active';

export interface SessionStore {
  /**
   * Holds one of `owner`'s `limit` places for the session `id` about to be
   * created, for `leaseMs` at most: counted, with the other reservations, as
   * an active session. `full` (with the count) when the owner's active
   * sessions and reservations already fill them.
   */
  reserve(owner: string, id: string, limit: number, leaseMs: number): Promise<Reservation>;
  /** Gives back the place reserve() held for `id`: its creation failed. */
  release(owner: string, id: string): Promise<void>;
  /** Stores the session; it takes over the place reserve() held for its id. */
  create(record: SessionRecord): Promise<void>;
  /** The session, with idle expiry applied. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Adds one operation's normalised JSON if the session is active and within the limits. */
  append(id: string, operation: string, limits: SessionLimits): Promise<AppendResult>;
  /** Each operation's JSON, in order: replayed as they are by the final render. */
  operations(id: string): Promise<string[] | undefined>;
  /** active → rendering, for `leaseMs` at most: one caller wins, every other one gets not-active. */
  beginRender(id: string, leaseMs: number): Promise<RenderClaim>;
  /** Ends the claim `token` holds; false when it no longer holds it (the lease lapsed and another render claimed it, or the session was deleted). */
  endRender(id: string, token: string, end: RenderEnd): Promise<boolean>;
  remove(id: string): Promise<void>;
  close(): void;
}

interface Entry {
  record: SessionRecord;
  readonly operations: string[];
  /** While rendering: the claim's token and when its lease lapses. */
  render?: { readonly token: string; readonly until: number };
}

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>();
  /** Places reserved for sessions being created: id → owner and when the reservation lapses. */
  readonly #reserved = new Map<string, { readonly owner: string; readonly until: number }>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(60_000, idleMs / 4)));
    this.#sweeper.unref();
  }

  // Single-threaded: the count and the reservation happen with no await between them.
  async reserve(owner: string, id: string, limit: number, leaseMs: number): Promise<Reservation> {
    const now = this.now();
    let active = 0;
    for (const entry of this.#sessions.values()) {
      this.#expire(entry);
      if (entry.record.owner === owner && (entry.record.status === 'active' || entry.record.status === 'rendering')) active++;
    }
    for (const [reserved, held] of this.#reserved) {
      if (now >= held.until) this.#reserved.delete(reserved);
      else if (held.owner === owner) active++;
    }
    if (active >= limit) return { kind: 'full', active };
    this.#reserved.set(id, { owner, until: now + leaseMs });
    return { kind: 'ok' };
  }

  async release(_owner: string, id: string): Promise<void> {
    this.#reserved.delete(id);
  }

  async create(record: SessionRecord): Promise<void> {
    this.#reserved.delete(record.id);
    this.#sessions.set(record.id, { record, operations: [] });
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    return this.#entry(id)?.record;
  }

  async append(id: string, operation: string, limits: SessionLimits): Promise<AppendResult> {
    const entry = this.#entry(id);
    if (entry === undefined) return { kind: 'gone' };
    const { record } = entry;
    if (record.status !== 'active') return { kind: 'not-active', status: record.status };
    if (record.operationCount >= limits.maxOperations) return { kind: 'full' };
    const size = operationSize(operation);
    if (record.bytes + size > limits.maxBytes) return { kind: 'too-large' };
    entry.operations.push(operation);
    entry.record = { ...record, operationCount: record.operationCount + 1, bytes: record.bytes + size, lastActivityAt: new Date(this.now()).toISOString() };
    return { kind: 'ok', session: entry.record };
  }

  async operations(id: string): Promise<string[] | undefined> {
    return this.#entry(id)?.operations.slice();
  }

  // Single-threaded: nothing can run between the check and the write (no await between them).
  async beginRender(id: string, leaseMs: number): Promise<RenderClaim> {
    const entry = this.#entry(id);
    if (entry === undefined) return { kind: 'gone' };
    if (entry.record.status !== 'active') return { kind: 'not-active', status: entry.record.status };
    const now = this.now();
    const token = randomUUID();
    entry.render = { token, until: now + leaseMs };
    entry.record = { ...entry.record, status: 'rendering', lastActivityAt: new Date(now).toISOString() };
    return { kind: 'ok', session: entry.record, token };
  }

  async endRender(id: string, token: string, end: RenderEnd): Promise<boolean> {
    const entry = this.#sessions.get(id);
    if (entry === undefined || entry.record.status !== 'rendering' || entry.render?.token !== token) return false;
    entry.render = undefined;
    entry.record = { ...entry.record, status: end, lastActivityAt: new Date(this.now()).toISOString() };
    return true;
  }

  async remove(id: string): Promise<void> {
    this.#sessions.delete(id);
  }

  /** Expires idle sessions; removes expired and rendered ones a further idle period later. */
  sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.#sessions) {
      this.#expire(entry);
      const ended = entry.record.status === 'rendered' || entry.record.status === 'expired';
      if (ended && now - Date.parse(entry.record.lastActivityAt) >= 2 * this.idleMs) this.#sessions.delete(id);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #entry(id: string): Entry | undefined {
    const entry = this.#sessions.get(id);
    if (entry !== undefined) this.#expire(entry);
    return entry;
  }

  #expire(entry: Entry): void {
    // A claim whose render never ended (it cannot, short of a bug: the route ends it in every case) lapses.
    if (entry.record.status === 'rendering' && this.now() >= (entry.render?.until ?? 0)) {
      entry.render = undefined;
      entry.record = { ...entry.record, status: 'active' };
    }
    if (entry.record.status === 'active' && this.now() - Date.parse(entry.record.lastActivityAt) >= this.idleMs) {
      entry.record = { ...entry.record, status: 'expired' };
    }
  }
}

/** What an operation adds to the replayed request: its bytes and a comma. */
export function operationSize(operation: string): number {
  return Buffer.byteLength(operation) + 1;
}
