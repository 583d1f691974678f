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

/** Submits `count` letters as jobs, SUBMITTERS at a time; a 503 is retried after its Retry-After, as a client would, and counted. */
export async function submitJobs(base: string, count: number): Promise<{ readonly ids: string[]; readonly refused: number }> {
  const ids: string[] = [];
  let next = 0;
  let refused = 0;
  const submitter = async () => {
    while (next < count) {
      next += 1;
      for (;;) {
        const response = await fetch(`${base}/api/v1/jobs`, { method: 'POST', headers: RENDER_HEADERS, body: LETTER_JSON });
        if (response.status === 503) {
          refused += 1;
          await response.arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000));
          continue;
        }
        if (response.status !== 201) throw new Error(`job submission failed: ${response.status} ${await response.text()}`);
        ids.push(((await response.json()) as { data: { job_id: string } }).data.job_id);
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: SUBMITTERS }, submitter));
  return { ids, refused };
}

/** Long-polls every job until it completes; returns the polls made (at least one a job). */
export async function awaitJobs(base: string, ids: readonly string[]): Promise<number> {
  let polls = 0;
  await Promise.all(
    ids.map(async (id) => {
      for (;;) {
        polls += 1;
        const state = await status(base, id, undefined, LONG_POLL_SECONDS);
        if (state === 'completed') return;
        if (state !== 'pending' && state !== 'running') throw new Error(`job ${id} ended ${state}`);
      }
    }),
  );
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
