// The human-in-the-loop approval flow, end to end over HTTP, as a client and
// an approver would follow it with curl.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfToText } from './helpers/pdf-tools.js';
import { ConfigError } from '../src/config.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { redisAround, redisEnv, type TestRedis } from './helpers/redis.js';
import { assertMatchesContract, loadContract, type Contract } from './helpers/openapi.js';

interface Approval {
  approval_id: string;
  status: string;
  operation: string;
  method: string;
  path: string;
  body_sha256: string;
  client: string;
  decided_by: string | null;
  reason: string | null;
  approval_url: string;
}

/** Set while the Redis variant runs. */
let redis: TestRedis | undefined;

describe('approval flow (PLATEN_APPROVAL_REQUIRED=render,jobs)', () => approvalTests());

describe('approval flow in the multi-node mode (Redis)', () => {
  redisAround((started) => (redis = started));
  approvalTests();
});

function approvalTests(): void {
  let t: TestServer;
  let contract: Contract;
  before(async () => {
    contract = await loadContract('render');
    t = await startTestServer({ PLATEN_APPROVAL_REQUIRED: 'render,jobs', ...redisEnv(redis) });
  });
  after(() => t.close());

  const document = textDocument('Approved letter');
  const get = (path: string, key: string) => fetch(`${t.base}${path}`, { headers: bearer(key) });
  const decide = (id: string, verdict: 'approve' | 'deny', key: string = KEYS.approver, body?: unknown) =>
    fetch(`${t.base}/api/v1/approvals/${id}/${verdict}`, {
      method: 'POST',
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function requestApproval(body: unknown = document, path = '/api/v1/render'): Promise<Approval> {
    const response = await postJson(t.base, path, body);
    assert.equal(response.status, 202);
    const json = (await assertMatchesContract(contract, 'post', path, response)) as { data: Approval };
    assert.equal(response.headers.get('location'), `/api/v1/approvals/${json.data.approval_id}`);
    assert.equal(response.headers.get('approval-id'), json.data.approval_id);
    return json.data;
  }

  it('a gated call without Approval-Id is not run: 202 with an approval bound to client, call and body hash', async () => {
    const approval = await requestApproval();
    assert.match(approval.approval_id, /^apr_[0-9a-f]{24}$/);
    assert.equal(approval.status, 'pending');
    assert.equal(approval.operation, 'render');
    assert.equal(approval.method, 'POST');
    assert.equal(approval.path, '/api/v1/render');
    assert.equal(approval.client, 'ent-client');
    assert.equal(approval.body_sha256, createHash('sha256').update(JSON.stringify(document)).digest('hex'));
  });

  it('pending → 409 approval-pending with Retry-After; approved → runs once; a second use → 409 approval-used', async () => {
    const approval = await requestApproval();
    const pending = await postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id });
    assert.equal(pending.status, 409);
    assert.ok(Number(pending.headers.get('retry-after')) > 0);
    const problem = (await assertMatchesContract(contract, 'post', '/api/v1/render', pending)) as { type: string };
    assert.match(problem.type, /\/approval-pending$/);

    const listed = await get('/api/v1/approvals?status=pending', KEYS.approver);
    assert.equal(listed.status, 200);
    const list = (await assertMatchesContract(contract, 'get', '/api/v1/approvals', listed)) as { data: { approvals: Approval[] } };
    assert.ok(list.data.approvals.some((a) => a.approval_id === approval.approval_id));

    // The approver reads exactly what they approve.
    const body = await get(`/api/v1/approvals/${approval.approval_id}/body`, KEYS.approver);
    assert.equal(body.status, 200);
    assert.deepEqual(await body.json(), document);

    const approved = await decide(approval.approval_id, 'approve', KEYS.approver, { reason: 'checked' });
    assert.equal(approved.status, 200);
    const decided = ((await assertMatchesContract(contract, 'post', '/api/v1/approvals/{approval_id}/approve', approved)) as { data: Approval }).data;
    assert.equal(decided.status, 'approved');
    assert.equal(decided.decided_by, 'approver-client');
    assert.equal(decided.reason, 'checked');

    const run = await postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id });
    assert.equal(run.status, 200);
    assert.equal(run.headers.get('content-type'), 'application/pdf');
    assert.match(await pdfToText(new Uint8Array(await run.arrayBuffer())), /Approved letter/);

    const again = await postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id });
    assert.equal(again.status, 409);
    assert.equal((await readProblem(again)).slug, 'approval-used');
    const state = (await (await get(`/api/v1/approvals/${approval.approval_id}`, KEYS.enterprise)).json()) as { data: Approval };
    assert.equal(state.data.status, 'used');
  });

  it('denied → 403 capability-denied with the reason', async () => {
    const approval = await requestApproval();
    assert.equal((await decide(approval.approval_id, 'deny', KEYS.approver, { reason: 'not this one' })).status, 200);
    const response = await postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id });
    assert.equal(response.status, 403);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'capability-denied');
    assert.match(problem.detail, /not this one/);
  });

  it('an approved id with a different body, or on another route, is 403 and stays unspent', async () => {
    const approval = await requestApproval();
    await decide(approval.approval_id, 'approve');
    const otherBody = await postJson(t.base, '/api/v1/render', textDocument('Something else'), { 'approval-id': approval.approval_id });
    assert.equal(otherBody.status, 403);
    assert.match((await readProblem(otherBody)).detail, /body differs/);
    const otherRoute = await postJson(t.base, '/api/v1/jobs', document, { 'approval-id': approval.approval_id });
    assert.equal(otherRoute.status, 403);
    assert.equal((await postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id })).status, 200);
  });

  it('concurrent calls with one approval run exactly once', async () => {
    const approval = await requestApproval();
    await decide(approval.approval_id, 'approve');
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => postJson(t.base, '/api/v1/render', document, { 'approval-id': approval.approval_id }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 1);
    assert.equal(statuses.filter((s) => s === 409).length, 7);
  });

  it('gates jobs too: the approved call creates the job', async () => {
    const approval = await requestApproval(document, '/api/v1/jobs');
    assert.equal(approval.operation, 'jobs');
    await decide(approval.approval_id, 'approve');
    const created = await postJson(t.base, '/api/v1/jobs', document, { 'approval-id': approval.approval_id });
    assert.equal(created.status, 201);
  });

  it('only approvers decide, never their own calls, and a decision is final', async () => {
    const approval = await requestApproval();
    const notApprover = await decide(approval.approval_id, 'approve', KEYS.pro);
    assert.equal(notApprover.status, 403);
    assert.equal((await readProblem(notApprover)).slug, 'capability-denied');

    const own = await postJson(t.base, '/api/v1/render', document, bearer(KEYS.approver));
    const ownApproval = ((await own.json()) as { data: Approval }).data;
    const self = await decide(ownApproval.approval_id, 'approve', KEYS.approver);
    assert.equal(self.status, 403);
    assert.match((await readProblem(self)).detail, /own client/);

    await decide(approval.approval_id, 'deny');
    const twice = await decide(approval.approval_id, 'approve');
    assert.equal(twice.status, 409);
    assert.equal((await readProblem(twice)).slug, 'approval-decided');
  });

  it('approvals belong to their client: others get 404, and an unknown id is 404', async () => {
    const approval = await requestApproval();
    assert.equal((await get(`/api/v1/approvals/${approval.approval_id}`, KEYS.core)).status, 404);
    const stolen = await postJson(t.base, '/api/v1/render', document, { ...bearer(KEYS.core), 'approval-id': approval.approval_id });
    assert.equal(stolen.status, 404);
    const unknown = await postJson(t.base, '/api/v1/render', document, { 'approval-id': 'apr_000000000000000000000000' });
    assert.equal((await readProblem(unknown)).slug, 'not-found');
    // A non-approver lists only its own approvals.
    const mine = (await (await get('/api/v1/approvals?status=all', KEYS.core)).json()) as { data: { approvals: Approval[] } };
    assert.ok(mine.data.approvals.every((a) => a.client === 'core-client'));
  });

  it('a bad status filter or decision body is a clear 400/422', async () => {
    const filter = await get('/api/v1/approvals?status=maybe', KEYS.approver);
    assert.equal(filter.status, 400);
    assert.match((await readProblem(filter)).detail, /pending, approved, denied, used, all/);
    const approval = await requestApproval();
    const long = await decide(approval.approval_id, 'deny', KEYS.approver, { reason: 'x'.repeat(501) });
    assert.equal(long.status, 422);
    assert.equal((await readProblem(long)).errors?.[0]?.field, 'reason');
  });

  it('ungated operations run as usual', async () => {
    const capabilities = await get('/api/v1/capabilities', KEYS.enterprise);
    assert.equal(capabilities.status, 200);
  });
}

describe('approval routes without PLATEN_APPROVAL_REQUIRED', () => {
  it('do not exist, and nothing is gated', async () => {
    const t = await startTestServer();
    try {
      assert.equal((await fetch(`${t.base}/api/v1/approvals`, { headers: bearer(KEYS.approver) })).status, 404);
      const response = await postJson(t.base, '/api/v1/render', textDocument('free'));
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    } finally {
      await t.close();
    }
  });
});

describe('PLATEN_APPROVAL_REQUIRED naming an operation the deployment does not have', () => {
  it('stops start-up naming it (a misspelt gate would leave the call ungated), whether a typo or a feature that is off', async () => {
    for (const [env, name] of [
      [{ PLATEN_APPROVAL_REQUIRED: 'render,rendr' }, '"rendr"'],
      [{ PLATEN_APPROVAL_REQUIRED: 'sessions' }, '"sessions"'],
      [{ PLATEN_APPROVAL_REQUIRED: 'ai-certify', PLATEN_EDITION: 'core' }, '"ai-certify"'],
    ] as const) {
      // A server that starts after all is closed again, so the failure is the assertion, not a hung test.
      const started = startTestServer(env).then(async (server) => {
        await server.close();
        return server;
      });
      await assert.rejects(started, (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.match(error.message, new RegExp(`PLATEN_APPROVAL_REQUIRED names ${name}, which this deployment does not have`));
        assert.match(error.message, /its operations are .*\brender\b/);
        return true;
      });
    }
    // Enabled, the feature's operation may be gated.
    const t = await startTestServer({ PLATEN_APPROVAL_REQUIRED: 'sessions', PLATEN_SESSIONS_ENABLED: 'true' });
    await t.close();
  });
});
