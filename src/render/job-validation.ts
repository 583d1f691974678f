// Job submissions validated in batches (issue 14). Under a backlog every
// thread is busy with jobs, so each submission's validation task waits for
// one; the submissions of a client that arrive meanwhile join the waiting
// task instead of queueing tasks of their own, and it validates them all
// when it gets its thread (ValidateOptions.lengths), one verdict each. A
// task costs far more than the validation in it: without the validation
// task a letter job took 2.50 ms of server CPU instead of 2.94, against
// 60 us of valibot. With the jobs bench's 4 submitters, the validations
// that waited together would have made 447 tasks of 990 (batches of 1:
// 158, 2: 125, 3: 74, 4: 90).
//
// What stays as it was for each submission: admission (the first of a
// batch is admitted by the pool as before; one that joins a task already
// admitted and waiting is admitted with it, so nothing is refused that a
// task of its own would not have been, and a batch is bounded: MAX_MEMBERS
// and MAX_BATCH_BYTES), its durable write started at admission, its own
// verdict and problem document, and a client that leaves being answered
// as gone. Batches are per client, so fair sharing still counts a
// client's validations as that client's task. Bodies over
// MAX_MEMBER_BYTES are validated alone, as before.
import { dispatch, taskValue } from '../http/dispatch.js';
import type { RouteContext } from '../http/route.js';
import type { CallerSignal, PoolResult, WorkerPool } from '../pool/pool.js';
import type { ValidateOptions, ValidationVerdict } from '../../workers/protocol.js';

/** Submissions one task validates at most. */
const MAX_MEMBERS = 8;
/** A body larger than this is validated by a task of its own: copying it into a batch would cost more than the task. */
const MAX_MEMBER_BYTES = 64 * 1024;
/** Bytes of bodies one batch carries at most. */
const MAX_BATCH_BYTES = 256 * 1024;

/**
 * A batch's task is never withdrawn for one member's client leaving (the
 * others still wait for it); a member that left is answered as gone when
 * the task ends. Validation is short, so nothing is held for long.
 */
const NEVER: CallerSignal = Object.freeze({ aborted: false, addEventListener: () => undefined, removeEventListener: () => undefined });

interface Member {
  readonly context: RouteContext;
  settle(result: PoolResult<'validate'>): void;
}

interface Batch {
  readonly members: Member[];
  bytes: number;
  started: boolean;
  /** The task's input: its members change until the task has its thread (RunOptions.started). */
  readonly input: { body: ArrayBuffer; length: number; options: ValidateOptions };
}

export class JobValidation {
  /** Per client, the batch admitted and still waiting for a thread, which submissions may join. */
  readonly #waiting = new Map<string, Batch>();

  constructor(private readonly pool: WorkerPool) {}

  /**
   * Validates the submission's body as dispatch(pool, context, 'validate')
   * does: resolves when it is valid, throws the problem (or ClientGone)
   * otherwise. `admitted` is called once the submission has a place.
   */
  async validate(context: RouteContext, admitted: () => void): Promise<void> {
    const length = context.body.length;
    if (context.principal === undefined || length > MAX_MEMBER_BYTES) {
      await dispatch(this.pool, context, 'validate', {}, context.body, admitted);
      return;
    }
    const client = this.pool.client(context.principal);
    const open = this.#waiting.get(client.id);
    if (open !== undefined && open.members.length < MAX_MEMBERS && open.bytes + length <= MAX_BATCH_BYTES) {
      open.bytes += length;
      const result = new Promise<PoolResult<'validate'>>((settle) => open.members.push({ context, settle }));
      admitted();
      taskValue(this.pool, context, await result);
      return;
    }
    const batch: Batch = { members: [], bytes: length, started: false, input: { body: context.body.buffer, length, options: {} } };
    const own = new Promise<PoolResult<'validate'>>((settle) => batch.members.push({ context, settle }));
    const run = this.pool.run('validate', batch.input, NEVER, {
      client,
      admitted: () => {
        admitted();
        if (!batch.started) this.#waiting.set(client.id, batch);
      },
      started: () => this.#start(client.id, batch),
    });
    void run.then((result) => {
      // Ended without a thread (timed out or pushed out while waiting): closed to newcomers too.
      this.#close(client.id, batch);
      this.#answer(batch, result);
    });
    taskValue(this.pool, context, await own);
  }

  /** The task has its thread: no one joins any more, and more than one member makes one body of all. */
  #start(client: string, batch: Batch): void {
    this.#close(client, batch);
    if (batch.members.length === 1) return;
    const body = new Uint8Array(batch.bytes);
    const lengths: number[] = [];
    let offset = 0;
    for (const { context } of batch.members) {
      body.set(new Uint8Array(context.body.buffer, 0, context.body.length), offset);
      offset += context.body.length;
      lengths.push(context.body.length);
    }
    batch.input.body = body.buffer;
    batch.input.length = body.byteLength;
    batch.input.options = { lengths };
  }

  #close(client: string, batch: Batch): void {
    batch.started = true;
    if (this.#waiting.get(client) === batch) this.#waiting.delete(client);
  }

  /** Each member's own result: the batch's failure, or its verdict as a lone validate task's outcome. */
  #answer(batch: Batch, result: PoolResult<'validate'>): void {
    const verdicts = batch.members.length > 1 && result.ok && result.outcome.ok ? (JSON.parse(Buffer.from(result.outcome.value.body).toString('utf8')) as ValidationVerdict[]) : undefined;
    batch.members.forEach((member, i) => {
      if (member.context.gone.aborted) return member.settle({ ok: false, reason: 'aborted' });
      if (verdicts === undefined || !result.ok) return member.settle(result);
      const verdict = verdicts[i];
      if (verdict === undefined) return member.settle({ ok: false, reason: 'crashed', error: new Error(`a validation batch of ${batch.members.length} answered ${verdicts.length} verdicts`) });
      const timings = result.outcome.timings;
      const value = { body: new ArrayBuffer(0), mediaType: 'application/json' };
      member.settle({ ...result, outcome: verdict === null ? { ok: true, value, timings } : { ok: false, ...verdict, timings } });
    });
  }
}
