// Sessions: a document kept open across calls. The embedded store keeps
// them in memory (they are short-lived by design: PLATEN_SESSION_IDLE_S);
// the multi-node mode will keep them in Redis behind the same interface.
export type SessionStatus = 'active' | 'rendered' | 'expired';

export interface SessionRecord {
  readonly id: string;
  readonly owner: string;
  status: SessionStatus;
  readonly documentId: string;
  readonly pageSize: string;
  readonly orientation: string;
  readonly createdAt: string;
  lastActivityAt: string;
  /** Each operation's normalised JSON, in order: replayed as they are by the final render. */
  readonly operations: string[];
  /** Total bytes of `operations`, bounded so that the replayed request fits a request body. */
  bytes: number;
}

export interface SessionStore {
  create(record: SessionRecord): void;
  /** The session, after applying idle expiry. */
  get(id: string): SessionRecord | undefined;
  remove(id: string): void;
  /** Active (not expired, not rendered) sessions of a client. */
  activeCount(owner: string): number;
}

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(60_000, idleMs / 4)));
    this.#sweeper.unref();
  }

  create(record: SessionRecord): void {
    this.#sessions.set(record.id, record);
  }

  get(id: string): SessionRecord | undefined {
    const session = this.#sessions.get(id);
    if (session !== undefined) this.#expire(session);
    return session;
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  activeCount(owner: string): number {
    let count = 0;
    for (const session of this.#sessions.values()) {
      this.#expire(session);
      if (session.owner === owner && session.status === 'active') count++;
    }
    return count;
  }

  /** Expires idle sessions; removes expired and rendered ones a further idle period later. */
  sweep(): void {
    const now = this.now();
    for (const session of this.#sessions.values()) {
      this.#expire(session);
      if (session.status !== 'active' && now - Date.parse(session.lastActivityAt) >= 2 * this.idleMs) this.#sessions.delete(session.id);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #expire(session: SessionRecord): void {
    if (session.status === 'active' && this.now() - Date.parse(session.lastActivityAt) >= this.idleMs) session.status = 'expired';
  }
}
