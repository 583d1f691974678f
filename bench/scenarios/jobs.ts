// Jobs (issues 4 and 14): a batch of letters submitted as jobs and awaited
// with long polls (GET /api/v1/jobs/{id}?wait=N, one request per job while
// it runs), reported as jobs/s against the synchronous render rate of the
// same document; the cost of a plain poll, measured apart; then synchronous
// renders at saturation while a backlog of jobs drains, against their rate
// and p99 alone: jobs run on every idle worker, but a waiting synchronous
// request gets the next thread first.
import { performance } from 'node:perf_hooks';
import { measure, type LoadFigures } from '../autocannon.js';
import type { ChildServer } from '../child.js';
import { LETTER_JSON } from '../documents.js';
import type { Settings } from '../settings.js';
import { ratio, round, Samples, type Latency } from '../stats.js';
import { RawConnection, requestHead } from '../raw-http.js';
import { RENDER_HEADERS, renderTarget, saturation } from './render.js';

/** Jobs in the measured batch, and in the backlog that drains under synchronous load. */
const BATCH = 200;
const BACKLOG = 400;
/** Seconds a long poll may wait for its job. */
const LONG_POLL_SECONDS = 10;
/** Plain polls measured apart (of finished jobs, so each is answered at once), four at a time. */
const PLAIN_POLLS = 2_000;
/**
 * Submissions in flight at once. Submission validates in a worker, so it
 * shares the pool's admission (threads + queue) with everything else; a
 * refused submission (503) is retried after its Retry-After, as a client
 * would, and counted.
 */
const SUBMITTERS = 4;
/** Connections long-polling the batch's jobs, each one job at a time. */
const POLLERS = 8;

export interface JobsResult {
  readonly jobs: number;
  /** Submissions answered 503 and retried after Retry-After. */
  readonly refusedSubmissions: number;
  readonly jobsPerSecond: number;
  /** Jobs/s ÷ synchronous renders/s of the same document. */
  readonly toSync: number | undefined;
  /** Long polls made for the batch (at least one per job). */
  readonly polls: number;
  /** Plain polls (no wait), answered at once. */
  readonly pollLatency: Latency;
  readonly syncAlone: LoadFigures;
  readonly syncDuringBacklog: LoadFigures;
  /** How many of the backlog's jobs were still unfinished when the synchronous run ended. */
  readonly backlogLeft: number;
}

/** A keep-alive connection to `base` for `method path` (raw-http.ts), with the request head built once. */
function rawClient(base: string, method: 'GET' | 'POST', path: string, headers: Record<string, string>): { readonly connection: RawConnection; readonly head: string } {
  const url = new URL(base);
  const target = { host: url.hostname, port: Number(url.port), method, path, headers };
  return { connection: new RawConnection(target), head: requestHead(target) };
}

/**
 * Submits `count` letters as jobs, SUBMITTERS at a time, each on its own
 * keep-alive connection (raw-http.ts: fetch cost the bench process ~1.1 ms
 * of CPU a request, against ~0.8 ms for the synchronous side's client, on
 * the cores the server shares; load 24); a 503 is retried after its
 * Retry-After, as a client would, and counted.
 */
export async function submitJobs(base: string, count: number): Promise<{ readonly ids: string[]; readonly refused: number }> {
  const ids: string[] = [];
  let next = 0;
  let refused = 0;
  const submitter = async () => {
    const { connection, head } = rawClient(base, 'POST', '/api/v1/jobs', RENDER_HEADERS);
    try {
      while (next < count) {
        next += 1;
        for (;;) {
          const answer = await connection.exchange(head, LETTER_JSON);
          if (answer.status === 503) {
            refused += 1;
            const retryAfter = /\r\nretry-after:\s*(\d+)/i.exec(answer.head)?.[1] ?? '1';
            await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000));
            continue;
          }
          if (answer.status !== 201) throw new Error(`job submission failed: ${answer.status} ${answer.body.toString()}`);
          ids.push((JSON.parse(answer.body.toString()) as { data: { job_id: string } }).data.job_id);
          break;
        }
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: SUBMITTERS }, submitter));
  return { ids, refused };
}

/**
 * Long-polls every job until it completes, POLLERS connections taking the
 * jobs in submission order (they finish about in that order, so a poll
 * mostly waits for a job that is running); returns the polls made (at least
 * one a job).
 */
export async function awaitJobs(base: string, ids: readonly string[]): Promise<number> {
  let polls = 0;
  let next = 0;
  const headers = { authorization: RENDER_HEADERS.authorization as string };
  const poller = async () => {
    // One socket per poller; each request's head names its job.
    const { connection } = rawClient(base, 'GET', '/api/v1/jobs', headers);
    try {
      while (next < ids.length) {
        const id = ids[next++] as string;
        const { head } = rawClient(base, 'GET', `/api/v1/jobs/${id}?wait=${LONG_POLL_SECONDS}`, headers);
        for (;;) {
          polls += 1;
          const answer = await connection.exchange(head, undefined);
          if (answer.status !== 200) throw new Error(`job poll failed: ${answer.status} ${answer.body.toString()}`);
          const state = (JSON.parse(answer.body.toString()) as { data: { status: string } }).data.status;
          if (state === 'completed') break;
          if (state !== 'pending' && state !== 'running') throw new Error(`job ${id} ended ${state}`);
        }
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(POLLERS, ids.length) }, poller));
  return polls;
}

async function status(base: string, id: string, latency?: Samples, waitSeconds = 0): Promise<string> {
  const started = performance.now();
  const query = waitSeconds > 0 ? `?wait=${waitSeconds}` : '';
  const response = await fetch(`${base}/api/v1/jobs/${id}${query}`, { headers: { authorization: RENDER_HEADERS.authorization as string } });
  const body = (await response.json()) as { data: { status: string } };
  latency?.add(performance.now() - started);
  return body.data.status;
}

export async function jobsScenario(settings: Settings, server: ChildServer, syncAlone: LoadFigures): Promise<JobsResult> {
  const started = performance.now();
  const batch = await submitJobs(server.base, BATCH);
  const polls = await awaitJobs(server.base, batch.ids);
  const seconds = (performance.now() - started) / 1000;
  const jobsPerSecond = round(BATCH / seconds, 1);
  const ids = batch.ids;

  const latency = new Samples();
  let next = 0;
  const poller = async () => {
    while (next < PLAIN_POLLS) await status(server.base, ids[next++ % ids.length] as string, latency);
  };
  await Promise.all(Array.from({ length: 4 }, poller));

  const backlog = await submitJobs(server.base, BACKLOG);
  const during = await measure(renderTarget(server.base, saturation(settings)), 1, Math.max(3, Math.floor(settings.seconds / 2)));
  let left = 0;
  for (const id of backlog.ids) if ((await status(server.base, id)) !== 'completed') left += 1;

  return {
    jobs: BATCH,
    refusedSubmissions: batch.refused + backlog.refused,
    jobsPerSecond,
    toSync: ratio(jobsPerSecond, syncAlone.requestsPerSecond),
    polls,
    pollLatency: latency.latency(),
    syncAlone,
    syncDuringBacklog: during,
    backlogLeft: left,
  };
}
