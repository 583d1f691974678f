// Jobs: what the job routes and the runner need from a store, whatever keeps
// it (files in the embedded mode; Redis in the multi-node mode). A job
// belongs to the client that created it; its request body and its result
// are kept beside the record until the job is removed.
export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface JobRecord {
  readonly id: string;
  /** The client (key label) that created it; nobody else can see it. */
  readonly owner: string;
  readonly status: JobStatus;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly error: string | null;
  /** Set when the job was created with an Idempotency-Key. */
  readonly idempotency: { readonly key: string; readonly fingerprint: string } | null;
}

export interface JobStore {
  /** Records the job and its request body durably before the client is told it exists. */
  create(record: JobRecord, body: Uint8Array): Promise<void>;
  get(id: string): JobRecord | undefined;
  update(id: string, patch: Partial<Pick<JobRecord, 'status' | 'startedAt' | 'completedAt' | 'error'>>): Promise<JobRecord | undefined>;
  body(id: string): Promise<Uint8Array>;
  putResult(id: string, pdf: Uint8Array): Promise<void>;
  result(id: string): Promise<Uint8Array | undefined>;
  /** Removes the record, its body and its result. */
  remove(id: string): Promise<void>;
  /** Every record, for recovery after a restart and for retention sweeps. */
  all(): Iterable<JobRecord>;
}
