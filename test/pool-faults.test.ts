// Worker faults seen through HTTP: a worker that throws, a pool that is full,
// a runaway loop, a worker out of memory, a client that leaves mid-task, and
// the circuit breaker through its three states.
// Workers are held busy with an Atomics gate, never with sleeps.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { gate } from './helpers/gate.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { scrape, valueOf } from './helpers/prometheus.js';
import { FAULT_WORKER, startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const faulty = (fault: string) => ({ ...textDocument('after the fault'), fault });

describe('pool faults', () => {
  test('a worker that throws gives 500 internal and the pool keeps serving', async (t) => {
    const s = await startTestServer({}, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    const response = await postJson(s.base, '/api/v1/render', faulty('throw'));
    assert.equal(response.status, 500);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'internal');
    assert.ok(!problem.detail.includes('fixture'), 'the error message of a bug is logged, not sent');
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('fine'))).status, 200);
    assert.ok(s.logs.some((line) => line.level === 50 && line.status === 500), 'the 500 is logged at error level');
  });

  test('a worker that exits gives 500 and is replaced', async (t) => {
    const s = await startTestServer({ PLATEN_WORKERS: '1' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    assert.equal((await postJson(s.base, '/api/v1/render', faulty('exit'))).status, 500);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('fine'))).status, 200);
  });

  test('503 worker-pool-exhausted with Retry-After at once when every worker is busy and the queue is full', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    const running = postJson(s.base, '/api/v1/render', faulty('block'));
    await g.blocked(1);
    const queued = postJson(s.base, '/api/v1/render', faulty('block'));
    // The queued request is inside the pool once the health record counts it.
    await waitFor(async () => s.server.pool.stats.queued === 1);

    const started = performance.now();
    const refused = await postJson(s.base, '/api/v1/render', textDocument('one too many'));
    const elapsed = performance.now() - started;
    assert.equal(refused.status, 503);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal((await readProblem(refused)).slug, 'worker-pool-exhausted');
    assert.ok(elapsed < 1000, `refused at once (${elapsed.toFixed(1)} ms)`);

    const health = (await (await fetch(`${s.base}/health`)).json()) as { workers: { total: number; busy: number; idle: number } };
    assert.deepEqual(health.workers, { total: 1, busy: 1, idle: 0 });

    g.open();
    assert.equal((await running).status, 200);
    assert.equal((await queued).status, 200);
  });

  test('a standing queue admits by expected wait: 503 at once far below PLATEN_MAX_QUEUE, and the admitted requests complete', async (t) => {
    const g = gate();
    const s = await startTestServer(
      { PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '8', PLATEN_QUEUE_TARGET_MS: '1', PLATEN_QUEUE_INTERVAL_MS: '1' },
      { workerFile: FAULT_WORKER, workerData: g.workerData },
    );
    t.after(() => s.close());
    // Long enough (milliseconds of line breaking) that the task after it starts more than the 1 ms interval later.
    const long = textDocument(...Array.from({ length: 20 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}`));
    const blocked = postJson(s.base, '/api/v1/render', faulty('block'));
    await g.blocked(1);
    const queued = [postJson(s.base, '/api/v1/render', long)];
    await waitFor(async () => s.server.pool.stats.queued === 1);
    queued.push(postJson(s.base, '/api/v1/render', faulty('hold')));
    await waitFor(async () => s.server.pool.stats.queued === 2);
    queued.push(postJson(s.base, '/api/v1/render', textDocument('last in line')));
    await waitFor(async () => s.server.pool.stats.queued === 3);
    g.open();
    await g.held(1);
    // Every task so far started after waiting far past the 1 ms target, for longer than the interval: the queue stands.
    assert.equal(s.server.pool.stats.standing, true);
    assert.equal(s.server.pool.stats.queued, 1, 'one request waits: the queue is far from its cap of 8');

    const started = performance.now();
    const refused = await postJson(s.base, '/api/v1/render', textDocument('would wait past the target'));
    const elapsed = performance.now() - started;
    assert.equal(refused.status, 503);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const problem = await readProblem(refused);
    assert.equal(problem.slug, 'worker-pool-exhausted');
    assert.match(problem.detail, /PLATEN_QUEUE_TARGET_MS/);
    assert.ok(elapsed < 1000, `refused at once (${elapsed.toFixed(1)} ms)`);

    g.release();
    assert.equal((await blocked).status, 200);
    for (const response of queued) assert.equal((await response).status, 200);
    // Drained: the queue is a burst absorber again.
    assert.equal(s.server.pool.stats.standing, false);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('after the queue drained'))).status, 200);
  });

  test('a runaway task is stopped at the timeout: 504 request-timeout, and the worker is replaced', async (t) => {
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_TIMEOUT_MS: '1500' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    const response = await postJson(s.base, '/api/v1/render', faulty('spin'));
    assert.equal(response.status, 504);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'request-timeout');
    assert.match(problem.detail, /^Processing took longer than the 1500 ms limit/);
    // The follow-up lands on the replacement thread, which loads its modules
    // first (seconds at a load average of 25). Its processing timeout starts
    // when that thread takes it, so it is sent at once; only the wait for
    // the thread, bounded apart, could still end it: so the test waits on
    // the replacement (the pool's event), not on a longer timeout.
    await waitFor(async () => s.server.pool.stats.starting === 0);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('fine'))).status, 200);
  });

  test('a task that waits for a thread as long as the timeout is 504 without being run, and says it waited', async (t) => {
    // One thread, held by a job at the gate (a job has its own, longer limit): the render can only wait.
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_TIMEOUT_MS: '1000' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    t.after(() => g.open());
    assert.equal((await postJson(s.base, '/api/v1/jobs', faulty('block'))).status, 201);
    await g.blocked(1);
    const response = await postJson(s.base, '/api/v1/render', textDocument('waits'));
    assert.equal(response.status, 504);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'request-timeout');
    assert.match(problem.detail, /^No worker thread was free for 1000 ms/);
    assert.equal(s.server.pool.stats.busy, 1, 'the job still runs: nothing was stopped for the render that waited');
  });

  test('a worker out of memory fails its task with 422 and is replaced', async (t) => {
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_WORKER_MEMORY_MB: '64' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    const response = await postJson(s.base, '/api/v1/render', faulty('oom'));
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'validation-failed');
    assert.match(problem.detail, /memory/);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('fine'))).status, 200);
  });

  test('a client that disconnects aborts its task and frees the worker', async (t) => {
    // One worker and a long timeout: only the abort can free the worker in time.
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_TIMEOUT_MS: '60000' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    const controller = new AbortController();
    const spinning = postJson(s.base, '/api/v1/render', faulty('spin'), {}, controller.signal).catch((error: unknown) => error);
    await waitFor(async () => s.server.pool.stats.busy === 1);
    controller.abort();
    assert.equal(((await spinning) as Error).name, 'AbortError');
    const response = await postJson(s.base, '/api/v1/render', textDocument('fine'), {}, AbortSignal.timeout(10_000));
    assert.equal(response.status, 200);
    await waitFor(async () => s.logs.some((line) => line.status === 499));
  });

  test('the circuit breaker opens after repeated crashes: 503 fast, health reports it', async (t) => {
    const s = await startTestServer({ PLATEN_WORKERS: '1' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    for (let i = 0; i < 5; i++) assert.equal((await postJson(s.base, '/api/v1/render', faulty('throw'))).status, 500);
    const refused = await postJson(s.base, '/api/v1/render', textDocument('fine'));
    assert.equal(refused.status, 503);
    assert.equal((await readProblem(refused)).slug, 'worker-pool-exhausted');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const health = (await (await fetch(`${s.base}/health`)).json()) as { circuit_breaker: string; status: string };
    assert.equal(health.circuit_breaker, 'open');
    assert.equal(health.status, 'degraded');
    assert.equal((await fetch(`${s.base}/readyz`)).status, 503);
    // Liveness stays up: a restart cannot fix crashing input.
    const live = await fetch(`${s.base}/healthz`);
    assert.equal(live.status, 200);
    assert.equal(((await live.json()) as { status: string }).status, 'degraded');
  });

  test('the breaker half-opens after its cooldown, lets one probe through, closes on its success and reopens on a crash', async (t) => {
    // The breaker's clock is the test's: its ten-second cooldown passes when the test says so, not by waiting.
    let now = 1_000_000;
    const g = gate();
    const s = await startTestServer(
      { PLATEN_WORKERS: '1', PLATEN_METRICS_ENABLED: 'true' },
      { workerFile: FAULT_WORKER, workerData: g.workerData, breakerNow: () => now },
    );
    t.after(() => s.close());
    const accel = await loadContract('accel');
    const health = async () => (await assertMatchesContract(accel, 'get', '/health', await fetch(`${s.base}/health`))) as { circuit_breaker: string; status: string };
    const breakerGauge = async () => {
      const exposition = await scrape(s.base);
      return ['closed', 'open', 'half_open'].filter((state) => valueOf(exposition, 'platen_circuit_breaker_state', { state }) === 1);
    };
    const openIt = async () => {
      for (let i = 0; i < 5; i++) assert.equal((await postJson(s.base, '/api/v1/render', faulty('throw'))).status, 500);
      assert.equal((await health()).circuit_breaker, 'open');
    };

    await openIt();
    assert.deepEqual(await breakerGauge(), ['open']);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('refused'))).status, 503);
    now += 9_999;
    assert.equal((await health()).circuit_breaker, 'open', 'still open just before the ten seconds are over');
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('refused'))).status, 503);

    now += 1;
    const halfOpen = await health();
    assert.deepEqual([halfOpen.circuit_breaker, halfOpen.status], ['half_open', 'degraded']);
    assert.deepEqual(await breakerGauge(), ['half_open']);
    assert.equal((await fetch(`${s.base}/readyz`)).status, 200, 'half open is ready: the probe needs traffic');
    // The next task is the probe; held at the gate, it is the only one let through.
    const probe = postJson(s.base, '/api/v1/render', { ...textDocument('the probe'), fault: 'block' });
    await g.blocked(1);
    const second = await postJson(s.base, '/api/v1/render', textDocument('not while probing'));
    assert.equal(second.status, 503);
    assert.equal((await readProblem(second)).slug, 'worker-pool-exhausted');
    assert.equal((await health()).circuit_breaker, 'half_open');
    g.open();
    assert.equal((await probe).status, 200);
    const closed = await health();
    assert.deepEqual([closed.circuit_breaker, closed.status], ['closed', 'ok']);
    assert.deepEqual(await breakerGauge(), ['closed']);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('fine again'))).status, 200);

    // A crashing probe opens the breaker again at once, for another full cooldown.
    await openIt();
    now += 10_000;
    assert.equal((await health()).circuit_breaker, 'half_open');
    assert.equal((await postJson(s.base, '/api/v1/render', faulty('throw'))).status, 500);
    assert.equal((await health()).circuit_breaker, 'open');
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('refused'))).status, 503);
    now += 10_000;
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('probe succeeds'))).status, 200);
    assert.equal((await health()).circuit_breaker, 'closed');

    const exposition = await scrape(s.base);
    assert.equal(valueOf(exposition, 'platen_pool_tasks_total', { task: 'render', ending: 'crashed' }), 11);
    assert.equal(valueOf(exposition, 'platen_pool_tasks_total', { task: 'render', ending: 'breaker_open' }), 4);
  });

  test('timeouts and out-of-memory never open the breaker: a client cannot take the service down', async (t) => {
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_TIMEOUT_MS: '400' }, { workerFile: FAULT_WORKER });
    t.after(() => s.close());
    // More timeouts than the breaker's threshold of five crashes.
    for (let i = 0; i < 6; i++) assert.equal((await postJson(s.base, '/api/v1/render', faulty('spin'))).status, 504);
    const health = (await (await fetch(`${s.base}/health`)).json()) as { circuit_breaker: string };
    assert.equal(health.circuit_breaker, 'closed');
    assert.equal((await fetch(`${s.base}/readyz`)).status, 200);
  });
});

describe('graceful close', () => {
  test('close() waits for the request in flight, which completes; readiness is false meanwhile', async (t) => {
    const g = gate();
    const s = await startTestServer({ PLATEN_WORKERS: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    // Keep-alive connections opened before the shutdown, as a balancer's prober
    // holds them. Each answers once while draining: draining responses close
    // their connection.
    const probers = Array.from({ length: 3 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    t.after(() => probers.forEach((agent) => agent.destroy()));
    const probe = (agent: Agent, path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        get(`${s.base}${path}`, { agent }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject);
      });
    for (const agent of probers) assert.equal((await probe(agent, '/healthz')).status, 200);
    const [forReady, forLive, forApi] = probers as [Agent, Agent, Agent];

    const inFlight = postJson(s.base, '/api/v1/render', faulty('block'));
    await g.blocked(1);
    let closed = false;
    const closing = s.close().then(() => (closed = true));
    const ready = await probe(forReady, '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(JSON.parse(ready.body), { status: 'not_ready', checks: { pool: true, keys: true, accepting: false } });
    assert.equal((await probe(forLive, '/healthz')).status, 200, 'liveness stays up while draining');
    const refused = await probe(forApi, '/api/v1/capabilities');
    assert.equal(refused.status, 503);
    assert.match(refused.body, /shutting-down/);
    // Three round trips through the draining server later, close() is still waiting.
    assert.equal(closed, false, 'close waits for the request in flight');
    g.open();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('connection'), 'close', 'the draining server closes the connection after answering');
    await closing;
  });
});
