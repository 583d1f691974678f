// Black-box tests of the request pipeline: every status and slug it can
// answer, against a real server on port 0.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { routeGroup, type Route } from '../src/http/route.js';
import { KEYS, bearer } from './helpers/keys.js';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** A route that needs the pro tier, standing in for the pro operations of later issues. */
const proProbe: Route = {
  method: 'GET',
  path: '/api/v1/test-pro',
  auth: 'pro',
  body: 'none',
  operation: 'test-pro',
  handle: () => ({ status: 200, mediaType: 'application/json', body: '{}' }),
};

describe('pipeline', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_MAX_BODY_BYTES: '4096', PLATEN_CORS_ORIGINS: 'https://app.example' }, { extraRoutes: routeGroup('render', [proProbe]) });
  });
  after(() => s.close());

  test('400 bad-request for malformed JSON', async () => {
    const response = await postJson(s.base, '/api/v1/render', '{"operations": [');
    assert.equal(response.status, 400);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'bad-request');
    assert.equal(problem.title, 'Bad Request');
    assert.equal(problem.instance, '/api/v1/render');
    assert.match(problem.detail, /not valid JSON/);
  });

  test('400 bad-request for an empty body on a JSON route', async () => {
    const response = await postJson(s.base, '/api/v1/render', '');
    assert.equal(response.status, 400);
    assert.equal((await readProblem(response)).slug, 'bad-request');
  });

  for (const [name, headers] of [
    ['no Authorization header', {}],
    ['an unknown kid', bearer('svc_live_nobody_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')],
    ['a known kid with a wrong secret', bearer('svc_live_core1_wrongwrongwrongwrongwrong')],
    ['a malformed key', bearer('svc_live_x')],
    ['another scheme', { authorization: `Basic ${KEYS.core}` }],
  ] as const) {
    test(`401 unauthorized with WWW-Authenticate for ${name}`, async () => {
      const response = await fetch(`${s.base}/api/v1/capabilities`, { headers: { ...headers } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'unauthorized');
      assert.ok(!problem.detail.includes('wrong'), 'the detail never echoes the key');
    });
  }

  test('403 capability-denied when the tier is below the route', async () => {
    const response = await fetch(`${s.base}/api/v1/test-pro`, { headers: bearer(KEYS.core) });
    assert.equal(response.status, 403);
    assert.equal((await readProblem(response)).slug, 'capability-denied');
    const allowed = await fetch(`${s.base}/api/v1/test-pro`, { headers: bearer(KEYS.pro) });
    assert.equal(allowed.status, 200);
  });

  test('404 not-found for an unknown route, with the problem document', async () => {
    const response = await fetch(`${s.base}/api/v1/nothing-here`, { headers: bearer(KEYS.core) });
    assert.equal(response.status, 404);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'not-found');
    assert.equal(problem.instance, '/api/v1/nothing-here');
  });

  test('405 method-not-allowed with Allow on a known path', async () => {
    const response = await fetch(`${s.base}/api/v1/render`, { method: 'GET', headers: bearer(KEYS.core) });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
    assert.equal((await readProblem(response)).slug, 'method-not-allowed');
  });

  test('413 payload-too-large on a declared Content-Length over the cap', async () => {
    const response = await postJson(s.base, '/api/v1/render', textDocument('x'.repeat(5000)));
    assert.equal(response.status, 413);
    assert.equal((await readProblem(response)).slug, 'payload-too-large');
  });

  test('413 payload-too-large on a streamed (chunked) body once the bytes pass the cap', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${s.base}/api/v1/render`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...bearer(KEYS.core) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      // Keep sending 1 KiB chunks; the server answers once it has seen more than 4 KiB.
      let sent = 0;
      const pump = () => {
        if (sent > 64 * 1024 || req.destroyed) return;
        sent += 1024;
        req.write('x'.repeat(1024), () => setImmediate(pump));
      };
      pump();
    });
    assert.equal(status, 413);
    assert.match(body, /payload-too-large/);
  });

  test('415 unsupported-media-type for a non-JSON body', async () => {
    const response = await fetch(`${s.base}/api/v1/render`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...bearer(KEYS.core) },
      body: 'hello',
    });
    assert.equal(response.status, 415);
    assert.equal((await readProblem(response)).slug, 'unsupported-media-type');
  });

  test('422 validation-failed with INVALID_ENUM for an unknown page size', async () => {
    const response = await postJson(s.base, '/api/v1/render', { ...textDocument('hi'), page_size: 'Z9' });
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'validation-failed');
    assert.deepEqual(problem.errors?.[0] && { field: problem.errors[0].field, code: problem.errors[0].code }, { field: 'page_size', code: 'INVALID_ENUM' });
  });

  test('422 validation-failed for an empty operations list', async () => {
    const response = await postJson(s.base, '/api/v1/render', { operations: [] });
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.errors?.[0]?.field, 'operations');
    assert.equal(problem.errors?.[0]?.code, 'TOO_SHORT');
  });

  test('X-Request-Id on every response: honoured when sane, generated otherwise', async () => {
    const sane = await fetch(`${s.base}/healthz`, { headers: { 'x-request-id': 'trace-123.abc' } });
    assert.equal(sane.headers.get('x-request-id'), 'trace-123.abc');
    const insane = await fetch(`${s.base}/healthz`, { headers: { 'x-request-id': 'no spaces <allowed>' } });
    assert.match(insane.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    for (const response of [
      await fetch(`${s.base}/nope`),
      await fetch(`${s.base}/api/v1/capabilities`),
      await postJson(s.base, '/api/v1/render', '{'),
      await fetch(`${s.base}/readyz`, { method: 'HEAD' }),
      await fetch(`${s.base}/api/v1/render`, { method: 'OPTIONS' }),
    ]) {
      assert.ok(response.headers.get('x-request-id'), `${response.url} ${response.status} carries X-Request-Id`);
    }
  });

  test('the problem request_id matches the X-Request-Id header', async () => {
    const response = await fetch(`${s.base}/nope`, { headers: { 'x-request-id': 'abc-1' } });
    assert.equal((await readProblem(response)).request_id, 'abc-1');
  });

  test('CORS: a preflight from an allowed origin is answered; others get no Allow-Origin', async () => {
    const allowed = await fetch(`${s.base}/api/v1/render`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.match(allowed.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /Authorization/);

    const denied = await fetch(`${s.base}/api/v1/render`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(denied.headers.get('access-control-allow-origin'), null);

    const actual = await fetch(`${s.base}/api/v1/capabilities`, { headers: { origin: 'https://app.example', ...bearer(KEYS.core) } });
    assert.equal(actual.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.match(actual.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
  });

  test('HEAD on a GET route answers headers without a body', async () => {
    const response = await fetch(`${s.base}/healthz`, { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
  });

  test('every response carries no-store, nosniff and a Content-Security-Policy, and none names the server', async () => {
    const strict = "default-src 'none'; frame-ancestors 'none'";
    const answers: Array<[string, Promise<Response>, string]> = [
      ['JSON 200', fetch(`${s.base}/healthz`), strict],
      ['HEAD', fetch(`${s.base}/healthz`, { method: 'HEAD' }), strict],
      ['OPTIONS 204', fetch(`${s.base}/api/v1/render`, { method: 'OPTIONS' }), strict],
      ['401 problem', fetch(`${s.base}/api/v1/capabilities`), strict],
      ['404 problem (accelerator)', fetch(`${s.base}/v1/nothing-here`), strict],
      ['405 problem', fetch(`${s.base}/api/v1/render`, { method: 'PUT' }), strict],
      ['keyed JSON 200', fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) }), strict],
      // A browser's PDF viewer is left unstyled by default-src 'none' (chromium 271452): framing only.
      ['PDF 200', postJson(s.base, '/api/v1/render', JSON.stringify(textDocument('headers'))), "frame-ancestors 'none'"],
    ];
    for (const [what, pending, policy] of answers) {
      const response = await pending;
      await response.arrayBuffer();
      assert.ok(response.status < 500, `${what}: ${response.status}`);
      assert.equal(response.headers.get('cache-control'), 'no-store', what);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
      assert.equal(response.headers.get('content-security-policy'), policy, what);
      // uWS writes "uWebSockets: 20" unless told to be silent (src/http/uws.ts).
      assert.equal(response.headers.get('uwebsockets'), null, `${what}: the server names itself`);
    }
  });

  test('capabilities list the operations of the key tier within the edition', async () => {
    const core = (await (await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).json()) as {
      data: { tier: string; operations: string[] };
      meta: { request_id: string; api_version: string };
    };
    assert.equal(core.data.tier, 'core');
    assert.ok(core.data.operations.includes('render'));
    assert.ok(!core.data.operations.includes('test-pro'));
    const pro = (await (await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.pro) })).json()) as typeof core;
    assert.ok(pro.data.operations.includes('test-pro'));
    assert.ok(core.meta.request_id.length > 0);
  });
});

describe('editions', () => {
  test('routes of an edition that is not installed are not registered: 404, not 403', async (t) => {
    const s = await startTestServer({ PLATEN_EDITION: 'core' }, { extraRoutes: routeGroup('render', [proProbe]) });
    t.after(() => s.close());
    const response = await fetch(`${s.base}/api/v1/test-pro`, { headers: bearer(KEYS.enterprise) });
    assert.equal(response.status, 404);
    assert.equal((await readProblem(response)).slug, 'not-found');
    const capabilities = (await (await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.enterprise) })).json()) as {
      data: { operations: string[] };
    };
    assert.ok(!capabilities.data.operations.includes('test-pro'));
    const health = (await (await fetch(`${s.base}/health`)).json()) as { tier: string };
    assert.equal(health.tier, 'core');
  });
});

describe('rate limits', () => {
  test('429 client-rate-exceeded with an integer Retry-After once a key spends its rpm', async (t) => {
    const s = await startTestServer({ PLATEN_API_KEYS: `${KEYS.core}:limited:core:rpm=2` });
    t.after(() => s.close());
    const call = () => fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) });
    assert.equal((await call()).status, 200);
    assert.equal((await call()).status, 200);
    const limited = await call();
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const problem = await readProblem(limited);
    assert.equal(problem.slug, 'client-rate-exceeded');
    assert.equal(problem.retry_after, undefined, 'retry_after is an accelerator field');
  });

  test('the default per-client quota comes from the tier (PLATEN_CORE_RPM)', async (t) => {
    const s = await startTestServer({ PLATEN_CORE_RPM: '1' });
    t.after(() => s.close());
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).status, 200);
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).status, 429);
    // Another client is not affected.
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.pro) })).status, 200);
  });

  test('failed authentication counts against the address, not the key owner', async (t) => {
    const s = await startTestServer({ PLATEN_AUTH_FAILURES_PER_MIN: '3' });
    t.after(() => s.close());
    const bad = () => fetch(`${s.base}/api/v1/capabilities`, { headers: bearer('svc_live_core1_guessguessguessguessguess') });
    assert.equal((await bad()).status, 401);
    assert.equal((await bad()).status, 401);
    assert.equal((await bad()).status, 401);
    const blocked = await bad();
    assert.equal(blocked.status, 429);
    assert.match(blocked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal((await readProblem(blocked)).slug, 'client-rate-exceeded');
    // The owner of the guessed key, and every valid key from the address, keep working.
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).status, 200);
  });

  test('accelerator routes answer 429 with rate-limit-exceeded and retry_after', async (t) => {
    const accelProbe: Route = { ...proProbe, path: '/v1/test-accel', auth: 'core', operation: 'test-accel' };
    const s = await startTestServer({ PLATEN_API_KEYS: `${KEYS.core}:limited:core:rpm=1` }, { extraRoutes: routeGroup('accel', [accelProbe]) });
    t.after(() => s.close());
    assert.equal((await fetch(`${s.base}/v1/test-accel`, { headers: bearer(KEYS.core) })).status, 200);
    const limited = await fetch(`${s.base}/v1/test-accel`, { headers: bearer(KEYS.core) });
    assert.equal(limited.status, 429);
    const problem = await readProblem(limited);
    assert.equal(problem.slug, 'rate-limit-exceeded');
    assert.equal(problem.retry_after, Number(limited.headers.get('retry-after')));
  });
});
