// GET /metrics through real HTTP: off by default (404), the Prometheus text
// format read strictly (test/helpers/prometheus.ts), counters that move by
// exactly the requests made between two scrapes, histograms whose buckets
// are cumulative and end in +Inf = count, and the pool's gauges while a
// worker is held at an Atomics gate.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DURATION_BUCKETS } from '../src/metrics/buckets.js';
import { routeGroup, type Route } from '../src/http/route.js';
import { gate } from './helpers/gate.js';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, assertMatchesResponse, loadContract } from './helpers/openapi.js';
import { samplesOf, scrape, valueOf, type Exposition } from './helpers/prometheus.js';
import { FAULT_WORKER, startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** An accelerator operation declared like the real ones (operation name, tier), answered without a worker. */
const ECHO: Route = {
  method: 'GET',
  path: '/v1/test/echo',
  auth: 'core',
  body: 'none',
  operation: 'test_echo',
  handle: () => ({ status: 200, mediaType: 'application/json', body: '{}' }),
};

const METRICS_ON = { PLATEN_METRICS_ENABLED: 'true' };

/** The change of every named series between two scrapes. */
function delta(before: Exposition, after: Exposition, name: string, labels: Record<string, string>): number {
  return valueOf(after, name, labels) - valueOf(before, name, labels);
}

/** Checks one histogram series: `le` bounds are the documented buckets, counts cumulative, +Inf = _count. */
function checkHistogram(exposition: Exposition, name: string, labels: Record<string, string>): { count: number; sum: number } {
  const matching = (sample: { labels: Record<string, string> }) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  const buckets = samplesOf(exposition, `${name}_bucket`).filter(matching);
  assert.deepEqual(
    buckets.map((b) => b.labels.le),
    [...DURATION_BUCKETS.map(String), '+Inf'],
    `${name} ${JSON.stringify(labels)}: the documented bounds, in order`,
  );
  for (let i = 1; i < buckets.length; i++) assert.ok((buckets[i]?.value ?? 0) >= (buckets[i - 1]?.value ?? 0), `${name}: buckets are cumulative`);
  const count = valueOf(exposition, `${name}_count`, labels);
  const sum = valueOf(exposition, `${name}_sum`, labels);
  assert.equal(buckets.at(-1)?.value, count, `${name}: +Inf equals _count`);
  assert.ok(sum >= 0);
  return { count, sum };
}

describe('GET /metrics', () => {
  test('does not exist unless PLATEN_METRICS_ENABLED: 404 not-found', async (t) => {
    const s = await startTestServer();
    t.after(() => s.close());
    const response = await fetch(`${s.base}/metrics`);
    assert.equal((await readProblem(response)).slug, 'not-found');
    assert.equal(response.status, 404);
  });

  test('answers the Prometheus text format without a key, as the contract says, also to HEAD', async (t) => {
    const s = await startTestServer(METRICS_ON);
    t.after(() => s.close());
    const accel = await loadContract('accel');
    const response = await fetch(`${s.base}/metrics`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    await assertMatchesContract(accel, 'get', '/metrics', response);
    await assertMatchesContract(accel, 'get', '/metrics', await fetch(`${s.base}/metrics`, { method: 'HEAD' }), { head: true });
    await assertMatchesResponse(accel, 'MethodNotAllowed', 405, await fetch(`${s.base}/metrics`, { method: 'POST' }));

    const exposition = await scrape(s.base);
    const types = Object.fromEntries([...exposition.values()].map((f) => [f.name, f.type]));
    assert.deepEqual(
      {
        accel_requests_total: types.accel_requests_total,
        accel_request_duration_seconds: types.accel_request_duration_seconds,
        platen_render_requests_total: types.platen_render_requests_total,
        platen_render_request_duration_seconds: types.platen_render_request_duration_seconds,
        platen_http_requests_in_flight: types.platen_http_requests_in_flight,
        platen_pool_workers: types.platen_pool_workers,
        platen_pool_queue_length: types.platen_pool_queue_length,
        platen_pool_queue_limit: types.platen_pool_queue_limit,
        platen_circuit_breaker_state: types.platen_circuit_breaker_state,
        platen_pool_tasks_total: types.platen_pool_tasks_total,
        platen_pool_task_wait_seconds: types.platen_pool_task_wait_seconds,
        platen_pool_task_run_seconds: types.platen_pool_task_run_seconds,
      },
      {
        accel_requests_total: 'counter',
        accel_request_duration_seconds: 'histogram',
        platen_render_requests_total: 'counter',
        platen_render_request_duration_seconds: 'histogram',
        platen_http_requests_in_flight: 'gauge',
        platen_pool_workers: 'gauge',
        platen_pool_queue_length: 'gauge',
        platen_pool_queue_limit: 'gauge',
        platen_circuit_breaker_state: 'gauge',
        platen_pool_tasks_total: 'counter',
        platen_pool_task_wait_seconds: 'histogram',
        platen_pool_task_run_seconds: 'histogram',
      },
    );
    assert.equal(types.process_cpu_user_seconds_total, 'counter', 'the standard process series are there');
    assert.equal(types.nodejs_eventloop_lag_seconds, 'gauge');
    // Every route's duration series exists from the start, before its first request.
    checkHistogram(exposition, 'accel_request_duration_seconds', { operation: 'health' });
    checkHistogram(exposition, 'platen_render_request_duration_seconds', { route: '/api/v1/jobs/:id', method: 'DELETE' });
    assert.equal(valueOf(exposition, 'platen_pool_workers', { state: 'idle' }), 2);
    assert.equal(valueOf(exposition, 'platen_pool_queue_limit'), 8);
    assert.equal(valueOf(exposition, 'platen_circuit_breaker_state', { state: 'closed' }), 1);
    assert.equal(valueOf(exposition, 'platen_circuit_breaker_state', { state: 'open' }), 0);
  });

  test('counters move by exactly the requests made, labelled by operation or route, outcome and code', async (t) => {
    const s = await startTestServer(METRICS_ON, { extraRoutes: routeGroup('accel', [ECHO]) });
    t.after(() => s.close());
    const before = await scrape(s.base);

    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${s.base}/health`)).status, 200);
    assert.equal((await fetch(`${s.base}/health`, { method: 'DELETE' })).status, 405);
    assert.equal((await fetch(`${s.base}/v1/test/echo`, { headers: bearer(KEYS.core) })).status, 200);
    assert.equal((await fetch(`${s.base}/v1/test/echo`)).status, 401);
    assert.equal((await fetch(`${s.base}/v1/no/such/operation`)).status, 404);
    assert.equal((await fetch(`${s.base}/healthz`)).status, 200);
    assert.equal((await fetch(`${s.base}/healthz`, { method: 'HEAD' })).status, 200);
    assert.equal((await postJson(s.base, '/api/v1/render', textDocument('counted'))).status, 200);
    assert.equal((await postJson(s.base, '/api/v1/render', { page_size: 'A99', operations: [] })).status, 422);
    assert.equal((await fetch(`${s.base}/api/v1/nothing-here`)).status, 404);
    assert.equal((await fetch(`${s.base}/api/v1/render`)).status, 405);

    const after = await scrape(s.base);
    const accel = (operation: string, status: string, code: string) => delta(before, after, 'accel_requests_total', { operation, status, code });
    assert.equal(accel('health', 'success', '200'), 3);
    assert.equal(accel('health', 'error', '405'), 1);
    assert.equal(accel('test_echo', 'success', '200'), 1, 'a declared operation is labelled with its operation name');
    assert.equal(accel('test_echo', 'error', '401'), 1);
    assert.equal(accel('(unknown)', 'error', '404'), 1);
    assert.equal(accel('metrics', 'success', '200'), 1, 'the first scrape is counted by the second');

    const render = (route: string, method: string, status: string, code: string) =>
      delta(before, after, 'platen_render_requests_total', { route, method, status, code });
    assert.equal(render('/healthz', 'GET', 'success', '200'), 1);
    assert.equal(render('/healthz', 'HEAD', 'success', '200'), 1);
    assert.equal(render('/api/v1/render', 'POST', 'success', '200'), 1);
    assert.equal(render('/api/v1/render', 'POST', 'error', '422'), 1);
    assert.equal(render('(unknown)', 'GET', 'error', '404'), 1);
    assert.equal(render('/api/v1/render', 'GET', 'error', '405'), 1, 'a 405 counts on its path, with the method sent');

    // Every request above is in exactly one counter: nothing counted twice or lost.
    const total = (e: Exposition) =>
      [...samplesOf(e, 'accel_requests_total'), ...samplesOf(e, 'platen_render_requests_total')].reduce((sum, sample) => sum + sample.value, 0);
    const sent = 3 + 1 + 2 + 1 + 2 + 2 + 1 + 1 + 1;
    assert.equal(total(after) - total(before), sent);

    const health = checkHistogram(after, 'accel_request_duration_seconds', { operation: 'health' });
    assert.equal(health.count - valueOf(before, 'accel_request_duration_seconds_count', { operation: 'health' }), 4);
    assert.ok(health.sum > 0);
    const renders = checkHistogram(after, 'platen_render_request_duration_seconds', { route: '/api/v1/render', method: 'POST' });
    assert.equal(renders.count, 2);
    // The worker's task time is inside the request's time.
    assert.ok(renders.sum >= valueOf(after, 'platen_pool_task_run_seconds_sum', { task: 'render' }));
    assert.equal(delta(before, after, 'platen_pool_tasks_total', { task: 'render', ending: 'completed' }), 2, 'the 422 is a completed task too');
    checkHistogram(after, 'platen_pool_task_run_seconds', { task: 'render' });
    assert.equal(valueOf(after, 'platen_pool_task_wait_seconds_count', { task: 'render' }), 2);
  });

  test('pool gauges while a worker is held busy: busy, idle, queue length, in flight, then a refusal counted as saturated', async (t) => {
    const g = gate();
    const s = await startTestServer({ ...METRICS_ON, PLATEN_WORKERS: '1', PLATEN_MAX_QUEUE: '1' }, { workerFile: FAULT_WORKER, workerData: g.workerData });
    t.after(() => s.close());
    const held = { ...textDocument('held'), fault: 'block' };
    const running = postJson(s.base, '/api/v1/render', held);
    await g.blocked(1);
    const queued = postJson(s.base, '/api/v1/render', held);
    await waitFor(() => s.server.pool.stats.queued === 1);

    const busy = await scrape(s.base);
    assert.equal(valueOf(busy, 'platen_pool_workers', { state: 'busy' }), 1);
    assert.equal(valueOf(busy, 'platen_pool_workers', { state: 'idle' }), 0);
    assert.equal(valueOf(busy, 'platen_pool_queue_length'), 1);
    assert.equal(valueOf(busy, 'platen_pool_queue_limit'), 1);
    // The two held renders and the scrape itself.
    assert.equal(valueOf(busy, 'platen_http_requests_in_flight'), 3);

    const refused = await postJson(s.base, '/api/v1/render', textDocument('one too many'));
    assert.equal(refused.status, 503);
    g.open();
    assert.equal((await running).status, 200);
    assert.equal((await queued).status, 200);

    const idle = await scrape(s.base);
    assert.equal(valueOf(idle, 'platen_pool_workers', { state: 'busy' }), 0);
    assert.equal(valueOf(idle, 'platen_pool_workers', { state: 'idle' }), 1);
    assert.equal(valueOf(idle, 'platen_pool_queue_length'), 0);
    assert.equal(valueOf(idle, 'platen_pool_tasks_total', { task: 'render', ending: 'completed' }), 2);
    assert.equal(valueOf(idle, 'platen_pool_tasks_total', { task: 'render', ending: 'saturated' }), 1);
    assert.equal(valueOf(idle, 'platen_render_requests_total', { route: '/api/v1/render', code: '503', status: 'error' }), 1);
    const wait = checkHistogram(idle, 'platen_pool_task_wait_seconds', { task: 'render' });
    assert.equal(wait.count, 2, 'refused tasks have no wait time');
    // The queued render waited at least as long as the first one ran; both are measured, neither is zero.
    assert.ok(wait.sum > 0);
  });
});

