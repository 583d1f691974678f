// The queue runner's view of the job store: a read or write that fails
// because Redis is unavailable (down, or hung and released by the PING
// check) is tried again, with backoff, until it succeeds or a time limit
// passes. Without it a one-second Redis stall lost every job that was
// finishing or being picked up: the write threw, BullMQ failed the job and
// removed it (removeOnFail, one attempt), and the record stayed `running`
// or `pending` for ever, with no queue entry left for any node to run.
//
// Trying again is safe because every state change is a compare-and-set and
// the result write is idempotent: a write released by a stall may still
// have run when Redis resumed, and its retry then finds the job already
// moved on (update returns undefined, as for a cancel) or rewrites the same
// bytes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobPatch, JobRecord, JobStatus, JobStore } from '../store/jobs.js';
import { DependencyUnavailable } from '../unavailable.js';

/** First pause between two tries, doubled up to MAX_PAUSE_MS: a blip (the PING check ends a stall within a PING interval) costs little. */
const FIRST_PAUSE_MS = 50;
/** ioredis reconnects at most every 2 s (RedisConnection.options); trying more often than every second gains nothing. */
const MAX_PAUSE_MS = 1_000;

export interface Patience {
  /** How long one call keeps trying before it throws the last DependencyUnavailable. */
  readonly limitMs: number;
  /** Stops the tries at once (the runner is shutting down). */
  readonly signal: AbortSignal;
}

/** Retries `attempt` while it throws DependencyUnavailable, within `patience`. Anything else it throws passes through at once. */
export async function patiently<T>(attempt: () => Promise<T>, patience: Patience): Promise<T> {
  const deadline = performance.now() + patience.limitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof DependencyUnavailable) || patience.signal.aborted || performance.now() + pause > deadline) throw error;
    }
    await sleep(pause, undefined, { signal: patience.signal }).catch(() => undefined);
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  }
}

export class PatientJobStore implements JobStore {
  constructor(
    private readonly store: JobStore,
    private readonly patience: Patience,
  ) {}

  /** Not the runner's: a submission answers 503 at once rather than wait. */
  create(record: JobRecord, body: Uint8Array): Promise<void> {
    return this.store.create(record, body);
  }

  get(id: string): Promise<JobRecord | undefined> {
    return patiently(() => this.store.get(id), this.patience);
  }

  update(id: string, patch: JobPatch, from?: readonly JobStatus[]): Promise<JobRecord | undefined> {
    return patiently(() => this.store.update(id, patch, from), this.patience);
  }

  body(id: string): Promise<Uint8Array | undefined> {
    return patiently(() => this.store.body(id), this.patience);
  }

  putResult(id: string, pdf: Uint8Array): Promise<void> {
    return patiently(() => this.store.putResult(id, pdf), this.patience);
  }

  complete(id: string, pdf: Uint8Array, completedAt: string): Promise<JobRecord | undefined> {
    return patiently(() => this.store.complete(id, pdf, completedAt), this.patience);
  }

  result(id: string): Promise<Uint8Array | undefined> {
    return patiently(() => this.store.result(id), this.patience);
  }

  remove(id: string): Promise<void> {
    return patiently(() => this.store.remove(id), this.patience);
  }
}
