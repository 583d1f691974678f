// Idempotency-Key claims in Redis, shared by every node: SET NX decides which
// request of a burst of duplicates (on any node) creates the job; the others
// wait for its claim to settle and then replay or conflict. A claim that is
// never settled (its node died) expires after CLAIM_TTL_MS.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Claim, IdempotencyStore } from '../idempotency.js';
import type { JobStore } from '../jobs.js';
import type { RedisConnection } from './connection.js';

/** Longest a request may hold a claim: validation plus the durable write of a job. */
const CLAIM_TTL_MS = 30_000;
const POLL_MS = 25;

// Deletes the key only while it still holds this request's claim.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly jobs: JobStore,
    /** Keys live as long as their job can: the job timeout plus its retention. */
    private readonly keyTtlMs: number,
  ) {}

  async claim(owner: string, key: string, fingerprint: string): Promise<Claim> {
    const id = this.#key(owner, key);
    const claimed = `pending:${fingerprint}:${Math.random().toString(36).slice(2)}`;
    const deadline = Date.now() + CLAIM_TTL_MS;
    while (Date.now() < deadline) {
      const set = await this.redis.run((client) => client.set(id, claimed, 'PX', CLAIM_TTL_MS, 'NX'));
      if (set === 'OK') {
        return {
          kind: 'new',
          commit: async (jobId) => void (await this.redis.run((client) => client.set(id, `job:${fingerprint}:${jobId}`, 'PX', this.keyTtlMs))),
          release: async () => void (await this.redis.run((client) => client.eval(RELEASE, 1, id, claimed))),
        };
      }
      const value = await this.redis.run((client) => client.get(id));
      if (value === null || value.startsWith('pending:')) {
        await sleep(POLL_MS);
        continue;
      }
      const [, committedFingerprint, jobId] = value.split(':');
      if (jobId !== undefined && (await this.jobs.get(jobId)) !== undefined) {
        return committedFingerprint === fingerprint ? { kind: 'replay', jobId } : { kind: 'conflict' };
      }
      // The job is gone (removed, or past retention): the key is free again.
      await this.redis.run((client) => client.eval(RELEASE, 1, id, value));
    }
    throw new Error('an Idempotency-Key claim was not settled within 30 s');
  }

  async forget(owner: string, key: string): Promise<void> {
    await this.redis.run((client) => client.del(this.#key(owner, key)));
  }

  /** Hashed: keys are arbitrary printable strings of up to 255 characters. */
  #key(owner: string, key: string): string {
    return this.redis.key('idem', createHash('sha256').update(`${owner}\n${key}`).digest('hex'));
  }
}
