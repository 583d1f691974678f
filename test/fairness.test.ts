// Fair sharing between clients (issue 9), through HTTP with two clients:
// one client's burst no longer gets another client's request refused, the
// next free thread goes to the client that has none, and jobs are served
// round robin across clients in the embedded runner and the BullMQ runner.
// Workers are held with the Atomics gate, never with sleeps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gate } from './helpers/gate.js';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { startRedis, type TestRedis } from './helpers/redis.js';
import { FAULT_WORKER, startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const blocking = (text: string) => ({ ...textDocument(text), fault: 'block' });

/** Client labels of the completed synchronous renders, in the order the server answered them. */
const renderOrder = (s: TestServer) =>
  s.logs.filter((line) => line.route === '/api/v1/render' && line.status === 200).map((line) => line.client as string);

describe('fair sharing of the worker pool', () => {
  test("one client's burst fills the queue; another client's request still gets a place, and the next thread", async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '3' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    const core = bearer(KEYS.core);
    const burst = [postJson(s.base, '/api/v1/render', blocking('a1'), core)];
    await g.blocked(1);
    for (const name of ['a2', 'a3', 'a4']) burst.push(postJson(s.base, '/api/v1/render', blocking(name), core));
    await waitFor(() => s.server.pool.stats.queued === 3);
    // The queue is full of core-client's work; before, this was a 503 for pro-client.
    const other = postJson(s.base, '/api/v1/render', textDocument('b1'), bearer(KEYS.pro));
    const pushedOut = await Promise.race(burst.slice(1).map(async (response) => (await response).status === 503 && (await response)));
    assert.ok(pushedOut, "the newest of core-client's waiting renders gave up its place");
    assert.equal((await readProblem(pushedOut)).slug, 'worker-pool-exhausted');
    assert.match(pushedOut.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    // core-client is at its share of the four places now: its next request is refused at once.
    const refused = await postJson(s.base, '/api/v1/render', textDocument('a5'), core);
    assert.equal(refused.status, 503);
    g.open();
    assert.equal((await other).status, 200);
    const statuses = await Promise.all(burst.map(async (response) => (await response).status));
    assert.deepEqual(statuses.sort(), [200, 200, 200, 503]);
    // One thread: a1 first, then pro-client (which held no thread) ahead of core-client's earlier a2 and a3.
    assert.deepEqual(renderOrder(s), ['core-client', 'pro-client', 'core-client', 'core-client']);
  });

  test('a weight attribute gives a client more of the queue under contention', async (t) => {
    const g = gate();
    const heavy = 'svc_live_heavy1_hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh';
    const light = 'svc_live_light1_llllllllllllllllllllllllllllllll';
    const s = await startTestServer(
      { PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '5', PLATEN_API_KEYS: `${heavy}:heavy:core:weight=2,${light}:light:core:` },
      { workerFile: FAULT_WORKER, workerData: g.workerData },
    );
    t.after(() => s.close());
    t.after(() => g.open());
    const held = [postJson(s.base, '/api/v1/render', blocking('l1'), bearer(light))];
    await g.blocked(1);
    for (let i = 2; i <= 6; i++) held.push(postJson(s.base, '/api/v1/render', blocking(`l${i}`), bearer(light)));
    await waitFor(() => s.server.pool.stats.queued === 5);
    // Six places; weights 2:1 give heavy four of them, taken from light's waiting renders.
    for (let i = 1; i <= 4; i++) held.push(postJson(s.base, '/api/v1/render', textDocument(`h${i}`), bearer(heavy)));
    await waitFor(() => s.logs.filter((line) => line.status === 503).length === 4);
    const fifth = await postJson(s.base, '/api/v1/render', textDocument('h5'), bearer(heavy));
    assert.equal(fifth.status, 503, 'heavy is at its share of four places');
    g.open();
    const byClient = (label: string, status: number) => s.logs.filter((line) => line.client === label && line.status === status).length;
    await Promise.all(held);
    assert.deepEqual([byClient('heavy', 200), byClient('light', 200), byClient('light', 503)], [4, 2, 4]);
  });
});

/** Submits a job and returns its id. */
async function submitJob(s: TestServer, key: string, body: unknown): Promise<string> {
  const response = await postJson(s.base, '/api/v1/jobs', body, bearer(key));
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { data: { job_id: string } }).data.job_id;
}

interface JobView {
  status: string;
  started_at: string | null;
  completed_at: string | null;
}

async function finished(s: TestServer, key: string, id: string): Promise<JobView> {
  let job: JobView | undefined;
  await waitFor(async () => {
    job = ((await (await fetch(`${s.base}/api/v1/jobs/${id}`, { headers: bearer(key) })).json()) as { data: JobView }).data;
    return job.status === 'completed';
  }, { timeoutMs: 20_000 });
  return job as JobView;
}

/**
 * core-client queues a backlog behind a job held at the gate; pro-client then
 * submits one job. With one job at a time (and a second thread for the
 * submissions' validation), pro-client's job must run before
 * the last two of core-client's backlog (strict arrival order would run it last).
 */
async function backlogThenOne(s: TestServer, g: ReturnType<typeof gate>): Promise<void> {
  const backlog = [await submitJob(s, KEYS.core, blocking('a1'))];
  await g.blocked(1);
  for (let i = 2; i <= 4; i++) backlog.push(await submitJob(s, KEYS.core, textDocument(`a${i}`)));
  const single = await submitJob(s, KEYS.pro, textDocument('b1'));
  g.open();
  const mine = await finished(s, KEYS.pro, single);
  const theirs = await Promise.all(backlog.map((id) => finished(s, KEYS.core, id)));
  const third = theirs[2] as JobView;
  assert.ok(
    (mine.completed_at as string) <= (third.started_at as string),
    `pro-client's job finished ${mine.completed_at}, before core-client's third started ${third.started_at}`,
  );
}

describe('fair order of jobs between clients', () => {
  test('embedded runner: a late client is not stuck behind another client backlog', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '2', PLATEN_JOB_CONCURRENCY: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    await backlogThenOne(s, g);
  });

  describe('BullMQ runner (multi-node mode)', () => {
    let redis: TestRedis;
    before(async () => {
      redis = await startRedis();
    });
    after(() => redis.stop());

    test('a late client is not stuck behind another client backlog', async (t) => {
      const g = gate();
      const s = await startTestServer(
        { PLATEN_WORKERS: '2', PLATEN_JOB_CONCURRENCY: '1', PLATEN_REDIS_URL: redis.url },
        { workerFile: FAULT_WORKER, workerData: g.workerData },
      );
      t.after(() => s.close());
      t.after(() => g.open());
      await backlogThenOne(s, g);
    });
  });
});
