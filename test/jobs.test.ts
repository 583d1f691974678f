// Async jobs (embedded mode): submit, poll, download, cancel, remove,
// ownership, idempotency, durability across a restart, retention, and the
// guarantee that a job backlog does not starve synchronous renders.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEYS, bearer } from './helpers/keys.js';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { gate } from './helpers/gate.js';
import { scrape, valueOf } from './helpers/prometheus.js';
import { FAULT_WORKER, startTestServer, temporaryDataDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

interface Job {
  job_id: string;
  status: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  progress: number | null;
  poll_url: string;
  result_url: string | null;
}

const submit = (s: TestServer, body: unknown, headers: Record<string, string> = {}) => postJson(s.base, '/api/v1/jobs', body, headers);
const read = async (response: Response): Promise<Job> => ((await response.json()) as { data: Job }).data;
const poll = (s: TestServer, id: string, key: string = KEYS.enterprise) => fetch(`${s.base}/api/v1/jobs/${id}`, { headers: bearer(key) });

/** Polls the job until it has `status`; its last answer says where it stopped when it never does. */
async function until(s: TestServer, id: string, status: string, timeoutMs = 15_000): Promise<Job> {
  let job: Job | undefined;
  await waitFor(async () => (job = await read(await poll(s, id))).status === status, { timeoutMs, what: `job ${id} reaching ${status}` });
  return job as Job;
}

/** The embedded store's journal (README, Jobs: Durability) as it is on disk now. */
const journal = (dataDir: string): Buffer => {
  const path = join(dataDir, 'jobs', 'journal');
  return existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
};

async function waitForQueued(s: TestServer, count: number): Promise<void> {
  await waitFor(() => s.server.pool.stats.queued === count, { what: `${count} waiting tasks in the pool` });
}

describe('jobs', () => {
  test('submit, poll with Retry-After, download: the PDF checks and holds the text', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const response = await submit(s, textDocument('rendered as a job'));
    assert.equal(response.status, 201);
    const job = await read(response);
    assert.match(job.job_id, /^job_[a-f0-9]{24}$/);
    assert.equal(response.headers.get('location'), `/api/v1/jobs/${job.job_id}`);
    assert.equal(job.poll_url, `/api/v1/jobs/${job.job_id}`);
    assert.ok(['pending', 'running', 'completed'].includes(job.status));
    const done = await until(s, job.job_id, 'completed');
    assert.equal(done.progress, 100);
    assert.equal(done.result_url, `/api/v1/jobs/${job.job_id}/result`);
    assert.ok(done.started_at !== null && done.completed_at !== null);
    assert.equal((await poll(s, job.job_id)).headers.get('retry-after'), null, 'no Retry-After once finished');
    const result = await fetch(`${s.base}${done.result_url}`, { headers: bearer(KEYS.enterprise) });
    assert.equal(result.status, 200);
    assert.equal(result.headers.get('content-type'), 'application/pdf');
    const pdf = new Uint8Array(await result.arrayBuffer());
    await qpdfCheck(pdf);
    assert.match(await pdfToText(pdf), /rendered as a job/);
  });

  test('an invalid request is a 422 at submission, and no job is made', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const response = await submit(s, { operations: [], page_size: 'Z9' });
    assert.equal(response.status, 422);
    assert.equal((await readProblem(response)).slug, 'validation-failed');
  });

  test('a job submitted to an idle pool is one task: its render validates it first, and the submission is answered from that', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const ran = (task: string) => [...s.server.pool.tasks.series()].find((series) => series.task === task)?.endings[0] ?? 0;
    const job = await read(await submit(s, textDocument('one task')));
    assert.equal(job.status, 'pending');
    const done = await until(s, job.job_id, 'completed');
    assert.equal(done.progress, 100);
    assert.equal((await fetch(`${s.base}/api/v1/jobs/${job.job_id}/result`, { headers: bearer(KEYS.enterprise) })).status, 200);
    // Found invalid by the render's own check: 422, and nothing stored.
    const invalid = await submit(s, { operations: [], page_size: 'Z9' });
    assert.equal(invalid.status, 422);
    assert.equal((await readProblem(invalid)).slug, 'validation-failed');
    assert.equal(ran('validate'), 0, 'no validation task of its own');
    assert.equal(ran('render'), 2);
  });

  test('while running: Retry-After on polls, progress, 409 idempotency-conflict for the result; DELETE cancels and frees the worker', async (t) => {
    const g = gate();
    const s = await startTestServer({}, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    const job = await read(await submit(s, { ...textDocument('slow'), fault: 'block' }));
    await g.blocked(1);
    const running = await until(s, job.job_id, 'running');
    assert.equal((await poll(s, job.job_id)).headers.get('retry-after'), '1');
    assert.equal(typeof running.progress, 'number');
    const early = await fetch(`${s.base}/api/v1/jobs/${job.job_id}/result`, { headers: bearer(KEYS.enterprise) });
    assert.equal(early.status, 409);
    assert.equal((await readProblem(early)).slug, 'idempotency-conflict');

    const cancelled = await fetch(`${s.base}/api/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: bearer(KEYS.enterprise) });
    assert.equal(cancelled.status, 200);
    assert.equal((await read(cancelled)).status, 'cancelled');
    // The blocked task was aborted (its thread replaced), not left holding the worker.
    await waitFor(() => s.server.pool.stats.busy === 0, { timeoutMs: 2_000, what: 'the blocked task being stopped' });
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('sync after cancel'))).status, 200);
    // A finished (cancelled) job is removed by a second DELETE.
    assert.equal((await fetch(`${s.base}/api/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: bearer(KEYS.enterprise) })).status, 204);
    assert.equal((await poll(s, job.job_id)).status, 404);
    g.open();
  });

  test('a completed job is removed by DELETE (204); then everything about it is 404', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const job = await read(await submit(s, textDocument('x')));
    await until(s, job.job_id, 'completed');
    const removed = await fetch(`${s.base}/api/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: bearer(KEYS.enterprise) });
    assert.equal(removed.status, 204);
    assert.equal((await poll(s, job.job_id)).status, 404);
    assert.equal((await fetch(`${s.base}/api/v1/jobs/${job.job_id}/result`, { headers: bearer(KEYS.enterprise) })).status, 404);
  });

  test('jobs belong to their client: another key gets 404, like a job that does not exist', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const job = await read(await submit(s, textDocument('private')));
    await until(s, job.job_id, 'completed');
    const missing = await (await poll(s, 'job_000000000000000000000000', KEYS.core)).text();
    for (const response of [
      await poll(s, job.job_id, KEYS.core),
      await fetch(`${s.base}/api/v1/jobs/${job.job_id}/result`, { headers: bearer(KEYS.core) }),
      await fetch(`${s.base}/api/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: bearer(KEYS.core) }),
    ]) {
      assert.equal(response.status, 404);
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'not-found');
      assert.equal(problem.detail, (JSON.parse(missing) as { detail: string }).detail, 'indistinguishable from a missing job');
    }
    assert.equal((await poll(s, job.job_id)).status, 200, 'still there for its owner');
  });

  test('a failing job is reported as failed with the reason', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    // Valid to the schema, but no font has these characters: found while laying out.
    const job = await read(await submit(s, textDocument('\u{13000}\u{13001}')));
    const failed = await until(s, job.job_id, 'failed');
    assert.match(failed.error ?? '', /U\+13000/);
    assert.equal(failed.progress, null);
  });
});

describe('idempotency keys', () => {
  test('same key and body replays the job; another body is 409; malformed keys are 400', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const first = await submit(s, textDocument('once'), { 'idempotency-key': 'order-42' });
    assert.equal(first.status, 201);
    const job = await read(first);
    const again = await submit(s, textDocument('once'), { 'idempotency-key': 'order-42' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await read(again)).job_id, job.job_id);
    const other = await submit(s, textDocument('twice'), { 'idempotency-key': 'order-42' });
    assert.equal(other.status, 409);
    assert.equal((await readProblem(other)).slug, 'idempotency-conflict');
    // Keys are per client: another client may use the same key.
    const foreign = await submit(s, textDocument('once'), { 'idempotency-key': 'order-42', ...bearer(KEYS.pro) });
    assert.notEqual((await read(foreign)).job_id, job.job_id);
    for (const key of ['x'.repeat(256), 'has space', 'tab\there']) {
      const bad = await submit(s, textDocument('k'), { 'idempotency-key': key });
      assert.equal(bad.status, 400, key);
    }
  });

  test('twenty concurrent duplicates create exactly one job', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const responses = await Promise.all(Array.from({ length: 20 }, () => submit(s, textDocument('concurrent'), { 'idempotency-key': 'burst-1' })));
    const ids = new Set<string>();
    for (const response of responses) {
      assert.equal(response.status, 201);
      ids.add((await read(response)).job_id);
    }
    assert.equal(ids.size, 1);
  });

  test('a rejected submission is not stored: the same key works once the request is fixed', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    assert.equal((await submit(s, { operations: [] }, { 'idempotency-key': 'fix-me' })).status, 422);
    const fixed = await submit(s, textDocument('fixed'), { 'idempotency-key': 'fix-me' });
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });
});

describe('job durability and policy', () => {
  test('completed results survive a restart, and a job interrupted mid-run runs again after it', async (t) => {
    const dataDir = temporaryDataDir();
    const first = await startTestServer({ PLATEN_DATA_DIR: dataDir });
    const done = await read(await submit(first, textDocument('before restart')));
    await until(first, done.job_id, 'completed');
    const g = gate();
    const blocking = await startTestServer({ PLATEN_DATA_DIR: dataDir }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    await first.close();
    const interrupted = await read(await submit(blocking, { ...textDocument('interrupted'), fault: 'block' }));
    await g.blocked(1);
    await blocking.close();

    const open = gate();
    open.open();
    const after = await startTestServer({ PLATEN_DATA_DIR: dataDir }, { workerFile: FAULT_WORKER, workerData: open.workerData });
    t.after(() => after.close());
    const result = await fetch(`${after.base}/api/v1/jobs/${done.job_id}/result`, { headers: bearer(KEYS.enterprise) });
    assert.equal(result.status, 200);
    assert.match(await pdfToText(new Uint8Array(await result.arrayBuffer())), /before restart/);
    await until(after, interrupted.job_id, 'completed');
  });

  test('a submission is written while a worker validates it, and answered 201 once both are done', async (t) => {
    const g = gate();
    const dataDir = temporaryDataDir();
    const s = await startTestServer({ PLATEN_DATA_DIR: dataDir }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const response = submit(s, { ...textDocument('written while validated'), fault: 'block_validation' });
    await g.blocked(1);
    await waitFor(() => journal(dataDir).includes('written while validated'), { what: 'the request in the journal while its validation is held' });
    g.open();
    const answered = await response;
    assert.equal(answered.status, 201);
    await until(s, (await read(answered)).job_id, 'completed');
  });

  test('submissions that wait for a thread together are validated by one task, each with its own verdict', async (t) => {
    const g = gate();
    const dataDir = temporaryDataDir();
    const s = await startTestServer({ PLATEN_DATA_DIR: dataDir, PLATEN_WORKERS: '2' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.release());
    const ran = (task: string) => [...s.server.pool.tasks.series()].find((series) => series.task === task)?.endings[0] ?? 0;
    // Both threads held by synchronous renders: every submission's validation has to wait.
    const holding = Array.from({ length: 2 }, () => postJson(s.base, '/api/v1/render', { ...textDocument('holding'), fault: 'hold' }));
    await g.held(2);
    const valid = submit(s, textDocument('batched one'));
    await waitForQueued(s, 1);
    const invalid = submit(s, { ...textDocument('batched two'), page_size: 'Z9' });
    const other = submit(s, textDocument('batched three'));
    // Each joined the waiting task when it was admitted, which is when its job is written.
    await waitFor(() => ['batched one', 'batched two', 'batched three'].every((text) => journal(dataDir).includes(text)), { what: 'the three submissions in the journal' });
    assert.equal(s.server.pool.stats.queued, 1, 'one task for the three');
    g.release();
    for (const response of await Promise.all(holding)) assert.equal(response.status, 200);
    const [first, refused, third] = await Promise.all([valid, invalid, other]);
    assert.equal(first.status, 201);
    assert.equal(third.status, 201);
    assert.equal(refused.status, 422);
    assert.equal((await readProblem(refused)).slug, 'validation-failed');
    assert.equal(ran('validate'), 1);
    await until(s, (await read(first)).job_id, 'completed');
    await until(s, (await read(third)).job_id, 'completed');
  });

  test('a validation task that times out waiting for a thread takes no more submissions', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '2', PLATEN_TIMEOUT_MS: '300' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.release());
    // Two jobs hold both threads (they started from their submissions on the idle pool; jobs have their own timeout).
    const holding = await Promise.all(Array.from({ length: 2 }, async () => read(await submit(s, { ...textDocument('holding'), fault: 'hold' }))));
    await g.held(2);
    for (const text of ['first', 'second']) {
      const response = await postJson(s.base, '/api/v1/jobs', textDocument(text), {}, AbortSignal.timeout(5_000));
      assert.equal(response.status, 504, `${text}: answered when its own task timed out, not left waiting on the last one`);
    }
    g.release();
    for (const job of holding) await until(s, job.job_id, 'completed');
  });

  test('a request found invalid after it was written is removed before its 422: a restart does not bring it back', async (t) => {
    const g = gate();
    const dataDir = temporaryDataDir();
    const first = await startTestServer({ PLATEN_DATA_DIR: dataDir }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => g.open());
    const refused = submit(first, { operations: [], page_size: 'Z9', fault: 'block_validation' }, { 'idempotency-key': 'order-9' });
    await g.blocked(1);
    await waitFor(() => journal(dataDir).includes('"Z9"'), { what: 'the invalid request in the journal while its validation is held' });
    g.open();
    const problem = await refused;
    assert.equal(problem.status, 422);
    assert.equal((await readProblem(problem)).slug, 'validation-failed');
    await first.close();

    // Had the job stayed in the journal, the key would come back bound to it (another body: 409).
    const after = await startTestServer({ PLATEN_DATA_DIR: dataDir });
    t.after(() => after.close());
    const fixed = await submit(after, textDocument('fixed after a restart'), { 'idempotency-key': 'order-9' });
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  test('a client that leaves while its job is validated: the job is withdrawn without stopping the thread, and nothing is kept', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const client = new AbortController();
    const body = { ...textDocument('left while validated'), fault: 'block_validation' };
    const leaving = postJson(s.base, '/api/v1/jobs', body, { 'idempotency-key': 'left-1' }, client.signal).catch((error: unknown) => error);
    await g.blocked(1);
    client.abort();
    assert.equal(((await leaving) as Error).name, 'AbortError');
    // This test and the server share one event loop: once a later request is answered, the closed connection has been seen.
    assert.equal((await fetch(`${s.base}/health`)).status, 200);
    g.open();
    // Sent at once: a submission under the same key waits for the first one's outcome. Had the first job been
    // kept under the key, another body would be a 409; it is a new job.
    const again = await submit(s, textDocument('sent again'), { 'idempotency-key': 'left-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), null);
    assert.equal((await until(s, (await read(again)).job_id, 'completed')).progress, 100);
    // Both tasks completed: the first validated and stopped, and no thread was terminated (an abort counts as `aborted`).
    const endings = [...s.server.pool.tasks.series()].find((series) => series.task === 'render')?.endings;
    assert.deepEqual([endings?.[0], endings?.[4]], [2, 0]);
  });

  test('a submission the pool refuses at once (503) writes nothing', async (t) => {
    const g = gate();
    const dataDir = temporaryDataDir();
    const s = await startTestServer({ PLATEN_DATA_DIR: dataDir, PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const running = postJson(s.base, '/api/v1/render', { ...textDocument('holds the thread'), fault: 'block' });
    await g.blocked(1);
    const queued = postJson(s.base, '/api/v1/render', { ...textDocument('holds the queue'), fault: 'block' });
    await waitForQueued(s, 1);
    const response = await submit(s, textDocument('refused at once'));
    assert.equal(response.status, 503);
    assert.equal((await readProblem(response)).slug, 'worker-pool-exhausted');
    g.open();
    assert.equal((await running).status, 200);
    assert.equal((await queued).status, 200);
    // The journal writes in order: once a later job is acknowledged, a write started for the refused one would be there too.
    assert.equal((await submit(s, textDocument('acknowledged after it'))).status, 201);
    assert.ok(journal(dataDir).includes('acknowledged after it'));
    assert.equal(journal(dataDir).includes('refused at once'), false);
  });

  test('finished jobs are removed after PLATEN_JOB_RETENTION_S', async (t) => {
    const s = await startTestServer({ PLATEN_JOB_RETENTION_S: '1' });
    t.after(() => s.close());
    const job = await read(await submit(s, textDocument('short-lived')));
    await until(s, job.job_id, 'completed');
    await waitFor(async () => (await poll(s, job.job_id)).status === 404, { timeoutMs: 10_000, intervalMs: 100, what: 'removal within the retention sweep' });
  });

  test('short jobs use every idle worker, and a synchronous render waiting for a thread goes before them', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '2' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    // Submitted to an idle pool, a job would start from its submission (validated by its own render); so two
    // synchronous renders hold both threads first, and the jobs are validated apart, as synchronous work, and queued.
    const holding = Array.from({ length: 2 }, () => postJson(s.base, '/api/v1/render', { ...textDocument('holding'), fault: 'hold' }));
    await g.held(2);
    const submitted = Promise.all(Array.from({ length: 5 }, async () => read(await submit(s, { ...textDocument('backlog'), fault: 'block' }))));
    // One validation task waits (the submissions that arrive while it does join it: job-validation.ts).
    await waitForQueued(s, 1);
    g.release();
    for (const response of await Promise.all(holding)) assert.equal(response.status, 200);
    const jobs = await submitted;
    // Nothing is known yet about how long jobs take: they may hold both threads.
    await g.blocked(2);
    const sync = postJson(s.base, '/api/v1/render', textDocument('first in line'), {}, AbortSignal.timeout(10_000));
    // Two jobs wait in the pool (four are handed over: twice the threads), and the render.
    await waitForQueued(s, 3);
    g.open();
    assert.equal((await sync).status, 200);
    for (const job of jobs) await until(s, job.job_id, 'completed');
  });

  test('long jobs leave a worker for synchronous renders', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '2', PLATEN_JOB_TIMEOUT_MS: '300' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    // A job that runs until its 300 ms timeout teaches the pool that jobs are long (above PLATEN_QUEUE_TARGET_MS).
    const long = await read(await submit(s, { ...textDocument('long'), fault: 'spin' }));
    await until(s, long.job_id, 'failed');
    await Promise.all(Array.from({ length: 5 }, async () => read(await submit(s, { ...textDocument('backlog'), fault: 'block' }))));
    await g.blocked(1);
    const sync = await postJson(s.base, '/api/v1/render', textDocument('not starved'), {}, AbortSignal.timeout(5_000));
    assert.equal(sync.status, 200, 'served while a job holds the other thread');
  });
});

describe('long polls', () => {
  test('?wait answers as soon as the job finishes, not after the wait', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_METRICS_ENABLED: 'true' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const job = await read(await submit(s, { ...textDocument('long poll'), fault: 'block' }));
    await g.blocked(1);
    const started = performance.now();
    const held = fetch(`${s.base}/api/v1/jobs/${job.job_id}?wait=20`, { headers: bearer(KEYS.enterprise) });
    // The poll is parked in the server (in flight beside the scrape itself) before the job may finish.
    await waitFor(async () => (valueOf(await scrape(s.base), 'platen_http_requests_in_flight', {}) ?? 0) >= 2, { intervalMs: 5, what: 'the long poll parked in the server' });
    g.open();
    const answered = await held;
    assert.equal(answered.status, 200);
    assert.equal((await read(answered)).status, 'completed');
    assert.ok(performance.now() - started < 15_000, 'answered when the job finished, before the 20 s wait');
  });

  test('?wait ends with the job as it is when the wait is over; a bad wait is 400; a finished job answers at once', async (t) => {
    const g = gate();
    const s = await startTestServer({}, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const job = await read(await submit(s, { ...textDocument('still held'), fault: 'block' }));
    await g.blocked(1);
    const timedOut = await fetch(`${s.base}/api/v1/jobs/${job.job_id}?wait=1`, { headers: bearer(KEYS.enterprise) });
    assert.equal(timedOut.status, 200);
    assert.equal((await read(timedOut)).status, 'running');
    assert.equal(timedOut.headers.get('retry-after'), '1');
    for (const wait of ['21', '-1', 'soon', '1.5']) {
      const bad = await fetch(`${s.base}/api/v1/jobs/${job.job_id}?wait=${wait}`, { headers: bearer(KEYS.enterprise) });
      assert.equal(bad.status, 400, wait);
      assert.equal((await readProblem(bad)).slug, 'bad-request');
    }
    g.open();
    await until(s, job.job_id, 'completed');
    const done = await fetch(`${s.base}/api/v1/jobs/${job.job_id}?wait=20`, { headers: bearer(KEYS.enterprise), signal: AbortSignal.timeout(5_000) });
    assert.equal((await read(done)).status, 'completed');
  });

  test('a cancel wakes the long poll; shutting down answers every waiting poll', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_JOB_CONCURRENCY: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => g.open());
    const running = await read(await submit(s, { ...textDocument('held'), fault: 'block' }));
    await g.blocked(1);
    const pending = await read(await submit(s, textDocument('behind it')));
    const cancelled = fetch(`${s.base}/api/v1/jobs/${pending.job_id}?wait=20`, { headers: bearer(KEYS.enterprise) });
    const draining = fetch(`${s.base}/api/v1/jobs/${running.job_id}?wait=20`, { headers: bearer(KEYS.enterprise) });
    await fetch(`${s.base}/api/v1/jobs/${pending.job_id}`, { method: 'DELETE', headers: bearer(KEYS.enterprise) });
    assert.equal((await read(await cancelled)).status, 'cancelled');
    const started = performance.now();
    const closing = s.close();
    assert.equal((await draining).status, 200);
    assert.ok(performance.now() - started < 10_000, 'answered at the start of the drain, not after its wait');
    g.open();
    await closing;
  });
});
