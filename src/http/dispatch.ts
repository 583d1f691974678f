// Runs a route's task on the pool and turns every way it can end into
// either the task's value or an HttpProblem. The request body is handed
// over (transferred) to the worker.
import type { AccelFailureCode, OptionsOf, TaskName, ValueOf } from '../../workers/protocol.js';
import type { PoolResult, SaturationCause, WorkerPool } from '../pool/pool.js';
import { HttpProblem, type Slug } from './problem.js';
import type { Body } from './body.js';
import { ClientGone, type RouteContext } from './route.js';

const SATURATED: Record<SaturationCause, string> = {
  full: 'Every worker is busy and the queue is full; retry after the Retry-After delay, or submit slow work as a job.',
  standing: `Every worker is busy and the queue has stayed long, so this request would wait longer than the queue's target (twice this kind of task's recent time, or PLATEN_QUEUE_TARGET_MS when set); retry after the Retry-After delay, or submit slow work as a job.`,
  'pushed-out': 'This request waited in a full queue and its place went to another client below its fair share; retry after the Retry-After delay, or send fewer requests at once.',
};

/**
 * `options` are what workers/protocol.ts's TaskMap says the task takes.
 * `body` defaults to the request's; a route may hand the task a body of its own (a session's replay).
 * `admitted` is called synchronously once the pool has taken the task (RunOptions.admitted).
 */
export async function dispatch<Name extends TaskName>(
  pool: WorkerPool,
  context: RouteContext,
  task: Name,
  options: OptionsOf<Name>,
  body: Body = context.body,
  admitted?: () => void,
): Promise<ValueOf<Name>> {
  const client = context.principal === undefined ? undefined : pool.client(context.principal);
  const result = await pool.run(task, { body: body.buffer, length: body.length, options }, context.gone, { client, admitted });
  return taskValue(pool, context, result);
}

/** A pool result as a route takes it: the task's value, or the HttpProblem (or ClientGone) that answers it. */
export function taskValue<Name extends TaskName>(pool: WorkerPool, context: RouteContext, result: PoolResult<Name>): ValueOf<Name> {
  if (result.ok) {
    const { outcome } = result;
    context.timings.taskMs = outcome.timings.taskMs;
    context.timings.queueMs = Math.max(0, result.roundTripMs - outcome.timings.taskMs);
    context.timings.waitMs = result.waitMs;
    if (outcome.ok) return outcome.value;
    if (outcome.code === 'malformed') throw new HttpProblem('bad-request', { detail: outcome.detail });
    if (outcome.code === 'invalid') throw new HttpProblem('validation-failed', { detail: outcome.detail, errors: outcome.errors ?? [], cause: outcome.cause });
    throw new HttpProblem(outcome.code satisfies AccelFailureCode & Slug, { detail: outcome.detail, errors: outcome.errors ?? [], cause: outcome.cause });
  }
  switch (result.reason) {
    case 'saturated':
      throw new HttpProblem('worker-pool-exhausted', { detail: SATURATED[result.cause], retryAfter: result.retryAfterSeconds });
    case 'breaker-open':
      throw new HttpProblem('worker-pool-exhausted', {
        detail: 'Worker tasks keep crashing, so the circuit breaker is open; retry after the Retry-After delay.',
        retryAfter: result.retryAfterSeconds,
      });
    case 'timeout':
      throw new HttpProblem('request-timeout', {
        detail: result.waiting
          ? `No worker thread was free for ${pool.timeoutMs} ms (PLATEN_TIMEOUT_MS), so the request was not processed; retry later, or submit long work as a job.`
          : `Processing took longer than the ${pool.timeoutMs} ms limit (PLATEN_TIMEOUT_MS) and was stopped; submit long work as a job.`,
      });
    case 'out-of-memory': {
      const detail = `Processing this input needs more memory than a worker may use (${pool.memoryMb} MB, PLATEN_WORKER_MEMORY_MB); make the input smaller.`;
      throw new HttpProblem('validation-failed', { detail, errors: [{ field: '(body)', code: 'TOO_LARGE', message: detail }] });
    }
    case 'aborted':
      throw new ClientGone();
    case 'crashed':
      // A bug: the pipeline logs it and answers 500 `internal`.
      throw result.error instanceof Error ? result.error : new Error(`worker task failed: ${String(result.error)}`);
  }
}
