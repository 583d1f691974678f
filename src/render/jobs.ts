// The job routes (render spec section 4): submit, poll, cancel or remove,
// download. A job belongs to the client that made it: any other key gets
// 404, exactly as for a job that does not exist.
import { randomBytes } from 'node:crypto';
import { taskValue } from '../http/dispatch.js';
import { renderEnvelope } from '../http/envelope.js';
import { HttpProblem } from '../http/problem.js';
import type { Route, RouteContext, RouteResult } from '../http/route.js';
import type { SubmissionStarter, SubmittedRun } from '../jobs/execute.js';
import type { WorkerPool } from '../pool/pool.js';
import type { IdempotencyStore } from '../store/idempotency.js';
import { JobValidation } from './job-validation.js';
import { TERMINAL, type JobExecutor, type JobRecord, type JobStore } from '../store/jobs.js';

export interface JobRoutesDeps {
  readonly pool: WorkerPool;
  readonly store: JobStore;
  /** A runner that can start a job from its submission (the embedded one) validates it in its render when it starts it at once. */
  readonly runner: JobExecutor & Partial<SubmissionStarter>;
  readonly idempotency: IdempotencyStore;
  readonly apiVersion: string;
}

/** Printable ASCII without spaces: what clients use (UUIDs, ULIDs, order numbers) and safe to log. */
const IDEMPOTENCY_KEY_CHARACTER = /[^\x21-\x7e]/;
const IDEMPOTENCY_KEY_MAX = 255;
/**
 * The longest `?wait=` of a poll, in seconds: inside the default shutdown
 * grace (draining answers waiting polls at once anyway) and well inside the
 * 60 s idle timeout of common proxies (nginx's proxy_read_timeout).
 */
const MAX_WAIT_SECONDS = 20;

function waitSeconds(query: string): number {
  const raw = new URLSearchParams(query).get('wait');
  if (raw === null) return 0;
  if (!/^\d{1,2}$/.test(raw) || Number(raw) > MAX_WAIT_SECONDS) {
    throw new HttpProblem('bad-request', { detail: `The wait parameter must be whole seconds from 0 to ${MAX_WAIT_SECONDS}.` });
  }
  return Number(raw);
}

/** How soon a client should poll again while a job is not finished (seconds). */
const POLL_AFTER_SECONDS = 1;

export function jobRoutes(deps: JobRoutesDeps): Route[] {
  const { store, runner } = deps;
  const validation = new JobValidation(deps.pool);

  const view = async (job: JobRecord) => ({
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    error: job.error,
    progress: await runner.progress(job),
    poll_url: `/api/v1/jobs/${job.id}`,
    result_url: job.status === 'completed' ? `/api/v1/jobs/${job.id}/result` : null,
  });

  const answer = async (context: RouteContext, status: number, job: JobRecord, headers: Array<[string, string]> = []): Promise<RouteResult> => {
    if (!TERMINAL.has(job.status)) headers.push(['Retry-After', String(POLL_AFTER_SECONDS)]);
    return {
      status,
      mediaType: 'application/json',
      body: renderEnvelope(JSON.stringify(await view(job)), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: deps.apiVersion }),
      headers,
    };
  };

  /** The caller's own job, or 404 (the same answer whether it is someone else's or does not exist). */
  const own = async (context: RouteContext): Promise<JobRecord> => {
    const job = await store.get(context.request.params[0] ?? '');
    if (job === undefined || job.owner !== context.principal?.label) {
      throw new HttpProblem('not-found', { detail: 'There is no such job for this key (it may have been removed after its retention period).' });
    }
    return job;
  };

  const submit: Route = {
    method: 'POST',
    path: '/api/v1/jobs',
    auth: 'core',
    body: 'json',
    operation: 'jobs',
    fingerprint: (request) => request.headers['idempotency-key'] !== '',
    async handle(context) {
      const owner = context.principal?.label as string;
      const key = context.request.headers['idempotency-key'];
      const refusal = checkIdempotencyKey(key, context.request.idempotencyKeys);
      if (refusal !== undefined) throw new HttpProblem('bad-request', { detail: refusal });
      if (key === '') {
        const job = await accept(context, owner, null);
        return answer(context, 201, job, [['Location', `/api/v1/jobs/${job.id}`]]);
      }

      const fingerprint = context.body.sha256 as string;
      const claim = await deps.idempotency.claim(owner, key, fingerprint);
      if (claim.kind === 'conflict') {
        throw new HttpProblem('idempotency-conflict', { detail: 'This Idempotency-Key was already used with a different body; use a new key for a different request.' });
      }
      if (claim.kind === 'replay') {
        const job = (await store.get(claim.jobId)) as JobRecord;
        return answer(context, 201, job, [['Location', `/api/v1/jobs/${job.id}`], ['Idempotent-Replayed', 'true']]);
      }
      try {
        const job = await accept(context, owner, { key, fingerprint });
        await claim.commit(job.id);
        return answer(context, 201, job, [['Location', `/api/v1/jobs/${job.id}`]]);
      } catch (error) {
        // Refused before the job existed (422, 503, ...): nothing is stored, the client may retry.
        await claim.release();
        throw error;
      }
    },
  };

  /**
   * Validates the request in a worker and stores the job durably, both at
   * once, then queues it. The write starts as soon as the pool has taken the
   * validation task, so the 201 waits for the longer of the two rather than
   * their sum (issue 14: 200 jobs ran at the rate 4 clients could get 201s,
   * and the validation's round trip and the journal's group commit were each
   * 3.5-10 ms of a submission at load 7-10). A request the pool refuses at
   * once (503) writes nothing. A request found invalid, or whose validation
   * ends otherwise, is removed again, durably, before it is answered, so no
   * restart can bring it back. A job the runner starts at once is validated
   * by its own render task instead (runner.ts startSubmitted), with the same
   * checks, writes and removals.
   */
  const accept = async (context: RouteContext, owner: string, idempotency: JobRecord['idempotency']): Promise<JobRecord> => {
    const job: JobRecord = {
      id: `job_${randomBytes(12).toString('hex')}`,
      owner,
      status: 'pending',
      createdAt: new Date().toISOString(),
      startedAt: null,
      completedAt: null,
      error: null,
      idempotency,
    };
    // The store's own copy: the request's buffer is transferred to the validating worker while the store writes this one.
    const body = new Uint8Array(context.body.buffer, 0, context.body.length).slice();
    const started = await runner.startSubmitted?.(job, { body: context.body.buffer, length: context.body.length, create: () => store.create(job, body), gone: context.gone });
    if (started !== undefined) return acceptStarted(context, job, started);
    let stored: Promise<void> | undefined;
    const validated = validation.validate(context, () => {
      stored = store.create(job, body);
      // Awaited below in every case; this keeps a write that fails first from being reported as unhandled meanwhile.
      stored.catch(() => undefined);
    });
    try {
      await validated;
    } catch (error) {
      if (stored !== undefined) await stored.then(() => store.remove(job.id)).catch(() => undefined);
      throw error;
    }
    // A task that ran was admitted, so the write was started: this would be a bug in the pool.
    if (stored === undefined) throw new Error('the validation ran without the pool admitting it');
    await stored;
    try {
      await runner.enqueue(job);
    } catch (error) {
      // Not queued (the multi-node queue is unreachable): the client is told 503 and never learns the id, so nothing is kept.
      await store.remove(job.id).catch(() => undefined);
      throw error;
    }
    return job;
  };

  /** The submission of a job its runner started at once: answered from the render's word that the request is valid. */
  const acceptStarted = async (context: RouteContext, job: JobRecord, run: SubmittedRun): Promise<JobRecord> => {
    const verdict = await run.verdict;
    const stored = run.stored();
    // Awaited below in every case; this keeps a write that fails first from being reported as unhandled meanwhile.
    stored?.catch(() => undefined);
    if (!verdict.valid) {
      if (stored !== undefined) await stored.then(() => store.remove(job.id)).catch(() => undefined);
      taskValue(deps.pool, context, verdict.result);
      // Only a task that finished without finding the request invalid gets here, and such a task said it was valid first.
      throw new Error('the job task ended without saying whether its request is valid');
    }
    if (stored === undefined) throw new Error('the job task ran without the pool admitting it');
    await stored;
    return job;
  };

  return [
    submit,
    {
      method: 'GET',
      path: '/api/v1/jobs/:id',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const wait = waitSeconds(context.request.query);
        const job = await own(context);
        if (wait === 0 || TERMINAL.has(job.status)) return answer(context, 200, job);
        // A long poll: one answer when the job settles (or the wait is over) instead of many quick polls.
        await runner.settled(job.id, wait * 1000, context.signal);
        return answer(context, 200, await own(context));
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/jobs/:id',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const job = await own(context);
        if (!TERMINAL.has(job.status)) return answer(context, 200, (await runner.cancel(job.id)) ?? (await own(context)));
        await store.remove(job.id);
        if (job.idempotency !== null) await deps.idempotency.forget(job.owner, job.idempotency.key);
        return { status: 204, mediaType: 'application/json', body: '' };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/jobs/:id/result',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const job = await own(context);
        if (job.status !== 'completed') {
          // The render spec's status table gives this 409 the slug idempotency-conflict (section 7: "result
          // requested before completion (jobs)"); only the session 409's slug is left open there.
          throw new HttpProblem('idempotency-conflict', {
            detail: `The job is ${job.status}; its result can be downloaded once it is completed${TERMINAL.has(job.status) ? ', which it will not be' : ''}.`,
            retryAfter: TERMINAL.has(job.status) ? undefined : POLL_AFTER_SECONDS,
          });
        }
        const pdf = await store.result(job.id);
        if (pdf === undefined) throw new HttpProblem('not-found', { detail: 'The job result is no longer available.' });
        return { status: 200, mediaType: 'application/pdf', body: pdf, headers: [['Content-Disposition', `attachment; filename="${job.id}.pdf"`]] };
      },
    },
  ];
}

/**
 * Why an Idempotency-Key cannot be used, or undefined when it can (or none was
 * sent). Refused rather than guessed at: an empty key, two keys (which one would
 * a proxy have meant?), or characters a log or another node might read
 * differently. uWS trims bytes above 0x7f at either end of a header value along
 * with whitespace (a signed-char comparison), so "café" arrives as "caf": only
 * such bytes inside a key can be seen and refused (README, Jobs).
 */
export function checkIdempotencyKey(key: string, lines: number): string | undefined {
  const expected = `send one Idempotency-Key of 1-${IDEMPOTENCY_KEY_MAX} printable ASCII characters without spaces (a UUID, say), or none`;
  if (lines > 1) return `The request has ${lines} Idempotency-Key headers; ${expected}.`;
  if (lines === 1 && key === '') return `The Idempotency-Key header is empty; ${expected}.`;
  if (key.length > IDEMPOTENCY_KEY_MAX) return `The Idempotency-Key is ${key.length} characters long; ${expected}.`;
  const bad = IDEMPOTENCY_KEY_CHARACTER.exec(key);
  if (bad !== null) {
    const code = bad[0].charCodeAt(0).toString(16).padStart(2, '0');
    return `The Idempotency-Key has a character outside printable ASCII (0x${code}) at position ${bad.index + 1}; ${expected}.`;
  }
  return undefined;
}
