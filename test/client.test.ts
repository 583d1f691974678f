// The client library against a real server, in both modes: remote (a base
// URL over TCP) and sidecar (the server's PLATEN_SOCKET). Typed calls go to
// /health; retries, timeouts and the circuit breaker are driven by
// test-only accelerator routes (helpers/accel-routes.ts) through the real
// pipeline, so every answer is the server's own problem document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpProblem } from '../src/http/problem.js';
import {
  PlatenCircuitOpenError,
  PlatenClient,
  PlatenNetworkError,
  PlatenProblemError,
  PlatenTimeoutError,
  type PlatenClientOptions,
} from '../src/client/index.js';
import { envelope, hang, saturated, scripted } from './helpers/accel-routes.js';
import { KEYS } from './helpers/keys.js';
import { assertValid, loadContract } from './helpers/openapi.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A gate a route can wait on; the test opens it. */
function gate(): { wait: Promise<void>; open(): void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

let flakyMode: 'fail' | 'ok' | 'gated' = 'fail';
let probeGate = gate();
let probeArrived = gate();

const routes = {
  echo: scripted('/v1/test/echo', (_, context) => envelope(context, { ok: true })),
  enterprise: scripted('/v1/test/enterprise', (_, context) => envelope(context, {}), { auth: 'enterprise' }),
  busyTwice: scripted('/v1/test/busy-twice', (hit, context) => (hit <= 2 ? saturated(1) : envelope(context, { hit }))),
  busy: scripted('/v1/test/busy', () => saturated(1)),
  limited: scripted('/v1/test/limited', () => {
    throw new HttpProblem('rate-limit-exceeded', { detail: 'The rate limit is exhausted (test route).', retryAfter: 30 });
  }),
  invalid: scripted('/v1/test/invalid', () => {
    throw new HttpProblem('validation-failed', { detail: 'x: not valid (test route).', errors: [{ field: 'x', code: 'INVALID_VALUE', message: 'not valid' }] });
  }, { method: 'POST' }),
  crash: scripted('/v1/test/crash', () => {
    throw new Error('a bug (test route)');
  }),
  hang: scripted('/v1/test/hang', (_, context) => hang(context)),
  flaky: scripted('/v1/test/flaky', async (_, context) => {
    if (flakyMode === 'fail') throw new Error('a bug (test route)');
    if (flakyMode === 'gated') {
      probeArrived.open();
      await probeGate.wait;
    }
    return envelope(context, { mode: flakyMode });
  }),
};

describe('client library against a real server', () => {
  let s: TestServer;
  let dir: string;
  let socketPath: string;
  const clients: PlatenClient[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platen-client-'));
    socketPath = join(dir, 'platen.sock');
    s = await startTestServer({ PLATEN_SOCKET: socketPath }, { extraRoutes: Object.values(routes).map((r) => r.route) });
  });
  after(async () => {
    for (const client of clients) client.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type Extra = Omit<PlatenClientOptions, 'baseUrl' | 'socketPath' | 'apiKey'> & { apiKey?: string };
  const remote = (options: Extra = {}) => track(new PlatenClient({ baseUrl: s.base, apiKey: KEYS.core, proxy: false, ...options }));
  const sidecar = (options: Extra = {}) => track(new PlatenClient({ socketPath, apiKey: KEYS.core, ...options }));
  const track = (client: PlatenClient) => (clients.push(client), client);
  const modes = [
    ['remote', () => remote],
    ['sidecar', () => sidecar],
  ] as const;

  for (const [mode, make] of modes) {
    test(`${mode}: health() returns the health record the contract describes`, async () => {
      const accel = await loadContract('accel');
      const record = await make()().health();
      assertValid(accel, 'HealthRecord', record, 'health()');
      assert.equal(record.circuit_breaker, 'closed');
      assert.equal(record.workers.total, 2);
    });

    test(`${mode}: sends the key, X-Tenant-ID and X-Request-Id`, async () => {
      const client = make()({ tenant: 'acme' });
      const before = routes.echo.seen.length;
      const answer = await client.request<{ request_id: string; data: { ok: boolean } }>('GET', '/v1/test/echo', undefined, { requestId: 'trace-1.a' });
      assert.deepEqual(answer.data, { ok: true });
      assert.equal(answer.request_id, 'trace-1.a');
      const seen = routes.echo.seen.slice(before);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]?.tenant, 'acme');
      assert.equal(seen[0]?.requestId, 'trace-1.a');
      assert.equal(seen[0]?.remote === 'unix', mode === 'sidecar', 'socket requests are local');
      // Without one given, each call gets a UUID of its own; a per-call tenant overrides the client's.
      await client.request('GET', '/v1/test/echo', undefined, { tenant: 'other' });
      const last = routes.echo.seen.at(-1);
      assert.match(last?.requestId ?? '', UUID);
      assert.equal(last?.tenant, 'other');
      // No tenant configured: no header.
      await make()().request('GET', '/v1/test/echo');
      assert.equal(routes.echo.seen.at(-1)?.tenant, '');
    });

    test(`${mode}: problems surface as PlatenProblemError with the document`, async () => {
      const accel = await loadContract('accel');
      const denied = await make()().request('GET', '/v1/test/enterprise', undefined, { requestId: 'denied-1' }).then(
        () => assert.fail('expected 403'),
        (error: unknown) => error,
      );
      assert.ok(denied instanceof PlatenProblemError);
      assert.equal(denied.kind, 'problem');
      assert.equal(denied.slug, 'capability-denied');
      assert.equal(denied.status, 403);
      assert.equal(denied.requestId, 'denied-1');
      assert.match(denied.detail, /enterprise tier/);
      assert.equal(denied.attempts, 1);
      assertValid(accel, 'Problem', denied.problem, '403 problem');

      const unauthorized = await make()({ apiKey: 'svc_live_nobody_xxxxxxxxxxxxxxxxxxxx' }).request('GET', '/v1/test/echo').catch((error: unknown) => error);
      assert.ok(unauthorized instanceof PlatenProblemError);
      assert.equal(unauthorized.slug, 'unauthorized');
      assert.equal(unauthorized.status, 401);
      assertValid(accel, 'Problem', unauthorized.problem, '401 problem');
    });
  }

  test('retries 503 after retry_after, with the same request id, and returns the answer', async () => {
    const client = remote();
    const before = routes.busyTwice.seen.length;
    const started = performance.now();
    const answer = await client.request<{ data: { hit: number } }>('GET', '/v1/test/busy-twice');
    const elapsed = performance.now() - started;
    assert.equal(answer.data.hit, before + 3);
    const seen = routes.busyTwice.seen.slice(before);
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen.map((hit) => hit.requestId)).size, 1, 'one request id for every attempt');
    assert.ok(elapsed >= 2000, `waited the two Retry-After delays of 1 s (took ${Math.round(elapsed)} ms)`);
  });

  test('stops after maxAttempts and throws the last problem', async () => {
    const accel = await loadContract('accel');
    const before = routes.busy.seen.length;
    const error = await sidecar({ retry: { maxAttempts: 2 } }).request('GET', '/v1/test/busy').catch((e: unknown) => e);
    assert.ok(error instanceof PlatenProblemError);
    assert.equal(error.slug, 'worker-pool-exhausted');
    assert.equal(error.retryAfter, 1);
    assert.equal(error.attempts, 2);
    assert.equal(routes.busy.seen.length - before, 2);
    assertValid(accel, 'Problem', error.problem, '503 problem');
  });

  test('does not wait past its time budget: a retry_after beyond it is thrown at once', async () => {
    const before = routes.limited.seen.length;
    const started = performance.now();
    const error = await remote({ retry: { maxElapsedMs: 5_000 } }).request('GET', '/v1/test/limited').catch((e: unknown) => e);
    assert.ok(error instanceof PlatenProblemError);
    assert.equal(error.slug, 'rate-limit-exceeded');
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 30);
    assert.equal(error.attempts, 1);
    assert.equal(routes.limited.seen.length - before, 1);
    assert.ok(performance.now() - started < 5_000, 'did not sleep 30 s');
  });

  test('does not retry 4xx or 500', async () => {
    const invalid = routes.invalid.seen.length;
    const error = await remote().request('POST', '/v1/test/invalid', { x: 1 }).catch((e: unknown) => e);
    assert.ok(error instanceof PlatenProblemError);
    assert.equal(error.slug, 'validation-failed');
    assert.deepEqual(error.problem.errors, [{ field: 'x', code: 'INVALID_VALUE', message: 'not valid' }]);
    assert.equal(routes.invalid.seen.length - invalid, 1);
    assert.equal(routes.invalid.seen.at(-1)?.body, '{"x":1}');

    const crash = routes.crash.seen.length;
    const internal = await remote({ breaker: false }).request('GET', '/v1/test/crash').catch((e: unknown) => e);
    assert.ok(internal instanceof PlatenProblemError);
    assert.equal(internal.slug, 'internal');
    assert.equal(routes.crash.seen.length - crash, 1);
  });

  test('times out an attempt that gets no answer, and does not retry it', async () => {
    const before = routes.hang.seen.length;
    const started = performance.now();
    const error = await sidecar({ timeoutMs: 300 }).request('GET', '/v1/test/hang', undefined, { requestId: 'slow-1' }).catch((e: unknown) => e);
    assert.ok(error instanceof PlatenTimeoutError, String(error));
    assert.equal(error.kind, 'timeout');
    assert.equal(error.timeoutMs, 300);
    assert.equal(error.requestId, 'slow-1');
    assert.equal(error.attempts, 1);
    assert.ok(performance.now() - started >= 295);
    assert.equal(routes.hang.seen.length - before, 1);
  });

  test("the caller's AbortSignal aborts the call with its reason and does not count against the breaker", async () => {
    const client = remote({ breaker: { threshold: 1, cooldownMs: 60_000 } });
    const controller = new AbortController();
    const arrived = routes.hang.seen.length;
    const call = client.request('GET', '/v1/test/hang', undefined, { signal: controller.signal });
    await waitFor(() => routes.hang.seen.length > arrived, { intervalMs: 1, what: 'the call reaching the route' });
    controller.abort(new Error('caller gave up'));
    await assert.rejects(call, { message: 'caller gave up' });
    assert.equal(client.circuitState, 'closed');
  });

  test('retries a connection failure, then throws PlatenNetworkError', async () => {
    const client = track(new PlatenClient({ socketPath: join(dir, 'nobody.sock'), apiKey: KEYS.core, retry: { baseDelayMs: 1 } }));
    const error = await client.health().catch((e: unknown) => e);
    assert.ok(error instanceof PlatenNetworkError);
    assert.equal(error.code, 'ENOENT');
    assert.equal(error.attempts, 3);
  });

  test('the breaker opens after N consecutive 5xx, fails fast, and closes after a successful half-open probe', async () => {
    flakyMode = 'fail';
    // The breaker's clock is the test's: the cooldown passes when the test says so.
    let now = 0;
    const client = sidecar({ breaker: { threshold: 3, cooldownMs: 1_000, now: () => now } });
    const before = routes.flaky.seen.length;
    for (let i = 0; i < 3; i++) await assert.rejects(client.request('GET', '/v1/test/flaky'), { slug: 'internal' });
    assert.equal(client.circuitState, 'open');
    const fast = await client.request('GET', '/v1/test/flaky').catch((e: unknown) => e);
    assert.ok(fast instanceof PlatenCircuitOpenError);
    assert.equal(fast.retryInMs, 1_000);
    assert.equal(fast.attempts, 0);
    assert.equal(routes.flaky.seen.length - before, 3, 'the refused call never reached the server');
    // health() is not gated: it is how a caller sees that the service is back.
    assert.equal((await client.health()).status, 'ok');

    now += 999;
    assert.equal(client.circuitState, 'open', 'still open 1 ms before the cooldown ends');
    now += 1;
    assert.equal(client.circuitState, 'half_open');
    flakyMode = 'gated';
    probeGate = gate();
    probeArrived = gate();
    const probe = client.request<{ data: { mode: string } }>('GET', '/v1/test/flaky');
    await probeArrived.wait;
    // While the probe is in flight every other call fails fast.
    const other = await client.request('GET', '/v1/test/flaky').catch((e: unknown) => e);
    assert.ok(other instanceof PlatenCircuitOpenError);
    assert.equal(other.retryInMs, 0);
    probeGate.open();
    assert.equal((await probe).data.mode, 'gated');
    assert.equal(client.circuitState, 'closed');
    flakyMode = 'ok';
    assert.equal((await client.request<{ data: { mode: string } }>('GET', '/v1/test/flaky')).data.mode, 'ok');
  });

  test('a failed probe opens the breaker again', async () => {
    flakyMode = 'fail';
    let now = 0;
    const client = remote({ breaker: { threshold: 1, cooldownMs: 500, now: () => now }, retry: { maxAttempts: 1 } });
    await assert.rejects(client.request('GET', '/v1/test/flaky'), { slug: 'internal' });
    assert.equal(client.circuitState, 'open');
    now += 500;
    assert.equal(client.circuitState, 'half_open');
    await assert.rejects(client.request('GET', '/v1/test/flaky'), { slug: 'internal' });
    assert.equal(client.circuitState, 'open');
  });

  test('4xx answers never open the breaker; timeouts do', async () => {
    const client = remote({ breaker: { threshold: 2, cooldownMs: 60_000 } });
    for (let i = 0; i < 5; i++) await assert.rejects(client.request('POST', '/v1/test/invalid', {}), { slug: 'validation-failed' });
    await assert.rejects(client.request('GET', '/v1/test/enterprise'), { slug: 'capability-denied' });
    assert.equal(client.circuitState, 'closed');
    for (let i = 0; i < 2; i++) await assert.rejects(client.request('GET', '/v1/test/hang', undefined, { timeoutMs: 150 }), PlatenTimeoutError);
    assert.equal(client.circuitState, 'open');
    await assert.rejects(client.request('GET', '/v1/test/echo'), PlatenCircuitOpenError);
  });
});
