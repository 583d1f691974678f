// Approval requests of the human-in-the-loop flow (src/auth/approvals.ts):
// what the gate and the approver routes need from a store, whatever keeps it
// (memory in the embedded mode; Redis in the multi-node mode). Every state
// change is a compare-and-set, so two approvers deciding at once, or two
// requests spending one approval at once, cannot both win.
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used';

export interface ApprovalRecord {
  readonly id: string;
  /** The client (key label) whose call is waiting; only it can spend the approval. */
  readonly owner: string;
  readonly status: ApprovalStatus;
  /** The gated operation and the exact call: method, path and the SHA-256 of the body. */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly bodySha256: string;
  readonly createdAt: string;
  /** After this the approval is gone (404), whatever its state. */
  readonly expiresAt: string;
  readonly decidedAt: string | null;
  /** The approver's key label. */
  readonly decidedBy: string | null;
  readonly reason: string | null;
  readonly usedAt: string | null;
}

export type Decision = Pick<ApprovalRecord, 'decidedAt' | 'decidedBy' | 'reason'> & { readonly status: 'approved' | 'denied' };

export interface ApprovalStore {
  /** Keeps the call's body beside the record, so an approver can read what they approve. */
  create(record: ApprovalRecord, body: Uint8Array): Promise<void>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  body(id: string): Promise<Uint8Array | undefined>;
  /**
   * Moves the approval from `from` to the patched state if it is still in
   * `from` and not expired; returns the new record, or undefined when it is
   * not (any more) in that state.
   */
  transition(id: string, from: ApprovalStatus, patch: Partial<ApprovalRecord> & { readonly status: ApprovalStatus }): Promise<ApprovalRecord | undefined>;
  /** Unexpired approvals, oldest first, optionally of one owner and/or one status. */
  list(filter: { readonly owner?: string; readonly status?: ApprovalStatus }): Promise<ApprovalRecord[]>;
  close(): void;
}

/** The embedded store: in memory. A restart forgets approvals; the client asks again. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #approvals = new Map<string, ApprovalRecord>();
  readonly #bodies = new Map<string, Uint8Array>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.#sweeper = setInterval(() => this.#sweep(), 60_000);
    this.#sweeper.unref();
  }

  async create(record: ApprovalRecord, body: Uint8Array): Promise<void> {
    this.#approvals.set(record.id, record);
    this.#bodies.set(record.id, body);
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    return (await this.get(id)) === undefined ? undefined : this.#bodies.get(id);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const record = this.#approvals.get(id);
    return record === undefined || this.#expired(record) ? undefined : record;
  }

  async transition(id: string, from: ApprovalStatus, patch: Partial<ApprovalRecord> & { status: ApprovalStatus }): Promise<ApprovalRecord | undefined> {
    const record = await this.get(id);
    if (record === undefined || record.status !== from) return undefined;
    const next = { ...record, ...patch, id: record.id };
    this.#approvals.set(id, next);
    return next;
  }

  async list(filter: { owner?: string; status?: ApprovalStatus }): Promise<ApprovalRecord[]> {
    return [...this.#approvals.values()]
      .filter((r) => !this.#expired(r) && (filter.owner === undefined || r.owner === filter.owner) && (filter.status === undefined || r.status === filter.status))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #expired(record: ApprovalRecord): boolean {
    return Date.parse(record.expiresAt) <= this.now();
  }

  #sweep(): void {
    for (const record of this.#approvals.values()) {
      if (!this.#expired(record)) continue;
      this.#approvals.delete(record.id);
      this.#bodies.delete(record.id);
    }
  }
}
