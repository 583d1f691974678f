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

export type JobPatch = Partial<Pick<JobRecord, 'status' | 'startedAt' | 'completedAt' | 'error'>>;

export interface JobStore {
  /**
   * Records the job and its request body durably before the client is told
   * it exists. The body is handed over: the store may keep it (the caller
   * neither changes nor transfers it afterwards).
   */
  create(record: JobRecord, body: Uint8Array): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  /**
   * Applies the patch if the job exists and, when `from` is given, is in one
   * of those states (a compare-and-set: a cancel and a completion racing on
   * two nodes cannot both win). Returns the new record, or undefined.
   */
  update(id: string, patch: JobPatch, from?: readonly JobStatus[]): Promise<JobRecord | undefined>;
  body(id: string): Promise<Uint8Array | undefined>;
  putResult(id: string, pdf: Uint8Array): Promise<void>;
  /**
   * Stores the result and moves the job from `running` to `completed`, the
   * result durable no later than the record that points to it (the embedded
   * store writes both in one group commit). Returns the new record, or
   * undefined when the job is no longer running (cancelled meanwhile).
   */
  complete(id: string, pdf: Uint8Array, completedAt: string): Promise<JobRecord | undefined>;
  result(id: string): Promise<Uint8Array | undefined>;
  /** Removes the record, its body and its result. */
  remove(id: string): Promise<void>;
}

/** Runs accepted jobs: in process (embedded) or from a shared queue (multi-node). */
export interface JobExecutor {
  /** Queues a job whose record and body are stored (its owner decides its place among other clients' jobs). */
  enqueue(job: JobRecord): Promise<void>;
  /** 0-100 while pending or running, 100 when completed, null otherwise. */
  progress(job: JobRecord): Promise<number | null>;
  /** Cancels a pending or running job; a running task is aborted and its worker freed. */
  cancel(id: string): Promise<JobRecord | undefined>;
  /**
   * Resolves when the job may have settled (finished or cancelled, on any
   * node), after `timeoutMs`, or when `signal` fires: the long poll's wait.
   */
  settled(id: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** The server is draining: waiting polls are answered now. */
  releaseWaits(): void;
  /** Jobs this process is running now. */
  readonly activeJobs: number;
  close(): Promise<void>;
}
