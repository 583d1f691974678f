// High-control mode (PLATEN_HIGH_CONTROL) through real HTTP: X-Tenant-ID on
// every keyed route of both APIs (400 missing or malformed, 403 another
// tenant's or a key without a tenant), nothing asked of the probes, a rate
// limit per tenant that tenants do not share, and the key-list rule that keeps
// one client inside one tenant. Both contracts describe it on every keyed
// operation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyStore } from '../src/auth/key-store.js';
import { createLogger } from '../src/logger.js';
import { routeGroup, type Route } from '../src/http/route.js';
import { readProblem, textDocument } from './helpers/http.js';
import { bearer } from './helpers/keys.js';
import { assertMatchesContract, assertValid, isNode, loadContract, resolve, type Node } from './helpers/openapi.js';
import { startTestServer } from './helpers/server.js';

const ACME = 'svc_live_acme1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ACME_BATCH = 'svc_live_acme2_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const BETA = 'svc_live_beta1_cccccccccccccccccccccccccccccccc';
const NO_TENANT = 'svc_live_legacy1_dddddddddddddddddddddddddddddddd';

const TENANT_KEYS = [
  `${ACME}:acme:enterprise:tenant=acme`,
  // Another client (label) of the same tenant: it shares the tenant's limit.
  `${ACME_BATCH}:acme-batch:pro:tenant=acme`,
  `${BETA}:beta:enterprise:tenant=beta`,
  `${NO_TENANT}:legacy:enterprise:`,
].join(',');

/** A keyed accelerator operation answered without a worker (the real ones are declared the same way). */
const ACCEL_OP: Route = {
  method: 'POST',
  path: '/v1/test/op',
  auth: 'core',
  body: 'json',
  operation: 'test_op',
  handle: () => ({ status: 200, mediaType: 'application/json', body: '{"ok":true}' }),
};

function call(base: string, method: string, path: string, key: string, tenant?: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...bearer(key),
      ...(tenant === undefined ? {} : { 'x-tenant-id': tenant }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const render = (base: string, key: string, tenant?: string) => call(base, 'POST', '/api/v1/render', key, tenant, textDocument('tenant work'));
const accelOp = (base: string, key: string, tenant?: string) => call(base, 'POST', '/v1/test/op', key, tenant, {});

describe('high-control mode', () => {
  test('off by default: X-Tenant-ID is neither needed nor checked', async (t) => {
    const s = await startTestServer({ PLATEN_API_KEYS: TENANT_KEYS }, { extraRoutes: routeGroup('accel', [ACCEL_OP]) });
    t.after(() => s.close());
    assert.equal((await render(s.base, NO_TENANT)).status, 200);
    assert.equal((await render(s.base, ACME, 'beta')).status, 200);
    assert.equal((await accelOp(s.base, BETA)).status, 200);
  });

  test('every keyed route of both APIs asks for the key\'s tenant; the probes, /health and /metrics do not', async (t) => {
    const s = await startTestServer(
      { PLATEN_API_KEYS: TENANT_KEYS, PLATEN_HIGH_CONTROL: 'true', PLATEN_METRICS_ENABLED: 'true', PLATEN_SESSIONS_ENABLED: 'true' },
      { extraRoutes: routeGroup('accel', [ACCEL_OP]) },
    );
    t.after(() => s.close());
    const renderContract = await loadContract('render');
    const accelContract = await loadContract('accel');

    await t.test('the right tenant: 200 on both APIs', async () => {
      const response = await render(s.base, ACME, 'acme');
      assert.equal(response.status, 200);
      await assertMatchesContract(renderContract, 'post', '/api/v1/render', response);
      assert.equal((await accelOp(s.base, BETA, 'beta')).status, 200);
      const capabilities = await call(s.base, 'GET', '/api/v1/capabilities', ACME_BATCH, 'acme');
      assert.equal(capabilities.status, 200);
      await assertMatchesContract(renderContract, 'get', '/api/v1/capabilities', capabilities);
    });

    await t.test('no X-Tenant-ID: 400 bad-request on every keyed route, render and accelerator alike', async () => {
      const job = await call(s.base, 'POST', '/api/v1/jobs', ACME, 'acme', textDocument('a job'));
      assert.equal(job.status, 201);
      const jobPath = ((await job.json()) as { data: { poll_url: string } }).data.poll_url;
      const requests: Array<[string, string, string, unknown?]> = [
        ['get', '/api/v1/capabilities', '/api/v1/capabilities'],
        ['post', '/api/v1/render', '/api/v1/render', textDocument('x')],
        ['post', '/api/v1/jobs', '/api/v1/jobs', textDocument('x')],
        ['get', '/api/v1/jobs/{id}', jobPath],
        ['get', '/api/v1/jobs/{id}/result', `${jobPath}/result`],
        ['delete', '/api/v1/jobs/{id}', jobPath],
        ['post', '/api/v1/sessions', '/api/v1/sessions', {}],
      ];
      for (const [method, template, path, body] of requests) {
        const response = await call(s.base, method.toUpperCase(), path, ACME, undefined, body);
        assert.equal(response.status, 400, `${method} ${path}`);
        const problem = (await assertMatchesContract(renderContract, method as 'get', template, response)) as Node;
        assert.match(String(problem.detail), /X-Tenant-ID/);
      }
      const accel = await accelOp(s.base, ACME);
      assert.equal(accel.status, 400);
      const problem = await readProblem(accel.clone());
      assert.equal(problem.slug, 'bad-request');
      assertValid(accelContract, 'Problem', await accel.json(), 'the accelerator 400');
    });

    await t.test('a malformed X-Tenant-ID: 400, and the value is not echoed', async () => {
      const response = await render(s.base, ACME, 'acme corp/../x');
      assert.equal(response.status, 400);
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'bad-request');
      assert.ok(!problem.detail.includes('acme corp'));
    });

    await t.test('another tenant: 403 capability-denied, without naming either tenant', async () => {
      const response = await render(s.base, ACME, 'beta');
      assert.equal(response.status, 403);
      const problem = (await assertMatchesContract(renderContract, 'post', '/api/v1/render', response)) as Node;
      assert.equal(problem.type, 'https://platen.dev/errors/capability-denied');
      assert.doesNotMatch(String(problem.detail), /beta|"acme"/);
      const accel = await accelOp(s.base, BETA, 'acme');
      assert.equal(accel.status, 403);
      assert.equal((await readProblem(accel)).slug, 'capability-denied');
    });

    await t.test('a key without a tenant attribute cannot be used at all: 403, with or without the header', async () => {
      for (const tenant of [undefined, 'acme', 'legacy']) {
        const response = await render(s.base, NO_TENANT, tenant);
        assert.equal(response.status, 403, `X-Tenant-ID ${tenant}`);
        const problem = await readProblem(response);
        assert.equal(problem.slug, 'capability-denied');
        assert.match(problem.detail, /tenant/);
      }
    });

    await t.test('still 401 before any tenant check for a missing key', async () => {
      const response = await fetch(`${s.base}/api/v1/render`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' }, body: '{}' });
      assert.equal(response.status, 401);
    });

    await t.test('the probes, /health and /metrics need neither key nor tenant', async () => {
      for (const path of ['/healthz', '/readyz', '/health', '/metrics']) assert.equal((await fetch(`${s.base}${path}`)).status, 200, path);
    });
  });

  test('each tenant has its own rate limit, shared by its clients and not by other tenants', async (t) => {
    const s = await startTestServer({ PLATEN_API_KEYS: TENANT_KEYS, PLATEN_HIGH_CONTROL: 'true', PLATEN_TENANT_RPM: '3' }, { extraRoutes: routeGroup('accel', [ACCEL_OP]) });
    t.after(() => s.close());
    const renderContract = await loadContract('render');
    const accelContract = await loadContract('accel');
    // Refused requests count against nothing: a tenant check fails before the limits.
    assert.equal((await render(s.base, ACME)).status, 400);
    // Two clients of tenant acme, three requests in all: the tenant's quota.
    assert.equal((await render(s.base, ACME, 'acme')).status, 200);
    assert.equal((await accelOp(s.base, ACME, 'acme')).status, 200);
    assert.equal((await render(s.base, ACME_BATCH, 'acme')).status, 200);

    const limited = await render(s.base, ACME_BATCH, 'acme');
    assert.equal(limited.status, 429, 'acme-batch has used one request of its own 1,000, but its tenant is out');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const problem = (await assertMatchesContract(renderContract, 'post', '/api/v1/render', limited)) as Node;
    assert.match(String(problem.detail), /tenant "acme"/);
    const accel = await accelOp(s.base, ACME, 'acme');
    assert.equal(accel.status, 429);
    const accelProblem = (await accel.json()) as Node;
    assertValid(accelContract, 'Problem', accelProblem, 'the accelerator 429');
    assert.match(String(accelProblem.type), /\/rate-limit-exceeded$/);
    assert.equal(String(accelProblem.retry_after), accel.headers.get('retry-after'));

    // Tenant beta's bucket has not moved.
    for (let i = 0; i < 3; i++) assert.equal((await render(s.base, BETA, 'beta')).status, 200);
    assert.equal((await render(s.base, BETA, 'beta')).status, 429);
  });

  test('PLATEN_TENANT_RPM defaults to the enterprise rate', async (t) => {
    const s = await startTestServer({ PLATEN_API_KEYS: TENANT_KEYS, PLATEN_HIGH_CONTROL: 'true', PLATEN_ENTERPRISE_RPM: '2', PLATEN_PRO_RPM: '100' });
    t.after(() => s.close());
    // acme-batch is a pro client (100 a minute) of tenant acme, whose tenant limit is the enterprise rate, 2.
    assert.equal((await render(s.base, ACME_BATCH, 'acme')).status, 200);
    assert.equal((await render(s.base, ACME_BATCH, 'acme')).status, 200);
    const limited = await render(s.base, ACME_BATCH, 'acme');
    assert.equal(limited.status, 429);
    assert.match((await readProblem(limited)).detail, /tenant/);
  });

  test('keys that share a label must share the tenant: such a key list is refused', async () => {
    const logger = createLogger('silent');
    const shared = [`${ACME}:acme:enterprise:tenant=acme`, `${ACME_BATCH}:acme:enterprise:tenant=beta`].join(',');
    await assert.rejects(KeyStore.open({ entries: shared, file: undefined, reloadMs: 1000, logger }), /share the label "acme" but not the tenant/);
    const halfTenanted = [`${ACME}:acme:enterprise:tenant=acme`, `${ACME_BATCH}:acme:enterprise:`].join(',');
    await assert.rejects(KeyStore.open({ entries: halfTenanted, file: undefined, reloadMs: 1000, logger }), /share the label/);
    const rotation = [`${ACME}:acme:enterprise:tenant=acme`, `${ACME_BATCH}:acme:enterprise:tenant=acme`].join(',');
    const store = await KeyStore.open({ entries: rotation, file: undefined, reloadMs: 1000, logger });
    assert.equal(store.size, 2);
  });
});

test('both contracts list X-Tenant-ID and document 400 and 403 on every operation that takes a key', async () => {
  for (const name of ['render', 'accel'] as const) {
    const contract = await loadContract(name);
    const parameter = resolve(contract, { $ref: '#/components/parameters/XTenantId' });
    assert.equal(parameter.name, 'X-Tenant-ID');
    assert.equal(parameter.in, 'header');
    let keyed = 0;
    for (const [path, item] of Object.entries(contract.document.paths as Node)) {
      for (const [method, op] of Object.entries(item as Node)) {
        if (method === 'parameters' || !isNode(op)) continue;
        const security = (op.security ?? contract.document.security) as unknown[] | undefined;
        if (security === undefined || security.length === 0) continue;
        keyed++;
        const refs = ((op.parameters ?? []) as Node[]).map((p) => p.$ref);
        assert.ok(refs.includes('#/components/parameters/XTenantId'), `${name}: ${method.toUpperCase()} ${path} does not list XTenantId`);
        const responses = op.responses as Node;
        for (const status of ['400', '403']) assert.ok(status in responses, `${name}: ${method.toUpperCase()} ${path} does not document ${status}`);
      }
    }
    if (name === 'render') assert.ok(keyed >= 10, `render: only ${keyed} keyed operations found`);
  }
});
