// Idempotency-Key records for POST /jobs, per client. A claim decides what a
// request with a key does: create the job (and commit the key to it), replay
// the job the key already made (same body), or conflict (another body).
// Concurrent requests with one key wait for the first one's claim to settle,
// so twenty duplicates at once create exactly one job. A request refused
// before its job exists (401, 422, 429, 503) releases its claim: nothing is
// stored and the client may retry. Keys live as long as their job.
import type { JobRecord } from './jobs.js';

export type Claim =
  | { readonly kind: 'replay'; readonly jobId: string }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'new'; commit(jobId: string): Promise<void>; release(): Promise<void> };

export interface IdempotencyStore {
  claim(owner: string, key: string, fingerprint: string): Promise<Claim>;
  /** Drops the key of a job that was removed. */
  forget(owner: string, key: string): Promise<void>;
}

type Entry = { readonly fingerprint: string; readonly jobId: string } | { readonly pending: Promise<void> };

/** The embedded store: in memory, rebuilt at start-up from the job records, which carry their key. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>();

  constructor(
    jobs: Iterable<JobRecord>,
    private readonly jobExists: (id: string) => boolean,
  ) {
    for (const job of jobs) {
      if (job.idempotency !== null) this.#entries.set(entryKey(job.owner, job.idempotency.key), { fingerprint: job.idempotency.fingerprint, jobId: job.id });
    }
  }

  async claim(owner: string, key: string, fingerprint: string): Promise<Claim> {
    const id = entryKey(owner, key);
    for (;;) {
      const entry = this.#entries.get(id);
      if (entry !== undefined && 'pending' in entry) {
        await entry.pending;
        continue;
      }
      if (entry !== undefined && this.jobExists(entry.jobId)) {
        return entry.fingerprint === fingerprint ? { kind: 'replay', jobId: entry.jobId } : { kind: 'conflict' };
      }
      let settle: () => void = () => undefined;
      const pending = new Promise<void>((resolve) => (settle = resolve));
      this.#entries.set(id, { pending });
      return {
        kind: 'new',
        commit: async (jobId) => {
          this.#entries.set(id, { fingerprint, jobId });
          settle();
        },
        release: async () => {
          this.#entries.delete(id);
          settle();
        },
      };
    }
  }

  async forget(owner: string, key: string): Promise<void> {
    this.#entries.delete(entryKey(owner, key));
  }
}

/** Labels never hold a newline (src/auth/key-entry.ts), so this cannot collide across clients. */
function entryKey(owner: string, key: string): string {
  return `${owner}\n${key}`;
}
