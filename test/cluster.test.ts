// The multi-node mode: two real Platen processes sharing a real redis-server.
// What one node accepts, the other serves; limits and idempotency hold across
// both; a node that dies mid-job loses nothing; a Redis outage is a clean 503
// that heals by itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { KEY_ENTRIES, KEYS, bearer } from './helpers/keys.js';
import { pdfInfo, pdfToText } from './helpers/pdf-tools.js';
import { startRedis, type TestRedis } from './helpers/redis.js';
import { spawnServer, spawnServers, startTestServer, type SpawnedServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';

/** A client with a small quota, to see one limit shared by both nodes. */
const LIMITED = 'svc_live_lim1_llllllllllllllllllllllllllllllll';

function nodeEnv(redis: TestRedis, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PLATEN_REDIS_URL: redis.url,
    PLATEN_SESSIONS_ENABLED: 'true',
    PLATEN_JOB_LOCK_MS: '2000',
    // Gated so the approval flow is shown across nodes; no other test here linearizes.
    PLATEN_APPROVAL_REQUIRED: 'linearize',
    PLATEN_API_KEYS: `${KEY_ENTRIES},${LIMITED}:limited-client:core:rpm=6`,
    ...extra,
  };
}

interface Job {
  job_id: string;
  status: string;
  progress: number | null;
}

async function poll(base: string, id: string, until: (job: Job) => boolean, timeoutMs = 30_000): Promise<Job> {
  return waitFor(
    async () => {
      const response = await fetch(`${base}/api/v1/jobs/${id}`, { headers: bearer(KEYS.enterprise) });
      assert.equal(response.status, 200, `poll of ${id}: ${response.status}`);
      const job = ((await response.json()) as { data: Job }).data;
      return until(job) ? job : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `job ${id} reaching the awaited state` },
  );
}

describe('two nodes on one Redis', () => {
  let redis: TestRedis;
  let a: SpawnedServer;
  let b: SpawnedServer;
  before(async () => {
    redis = await startRedis();
    [a, b] = (await spawnServers(nodeEnv(redis), nodeEnv(redis))) as [SpawnedServer, SpawnedServer];
  });
  after(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await redis?.stop();
  });

  it('a job submitted on A is polled and downloaded on B', async () => {
    const submitted = await postJson(a.base, '/api/v1/jobs', textDocument('Made on A, fetched from B'));
    assert.equal(submitted.status, 201);
    const { job_id: id } = ((await submitted.json()) as { data: Job }).data;
    const done = await poll(b.base, id, (job) => job.status === 'completed');
    assert.equal(done.progress, 100);
    const result = await fetch(`${b.base}/api/v1/jobs/${id}/result`, { headers: bearer(KEYS.enterprise) });
    assert.equal(result.status, 200);
    assert.match(await pdfToText(new Uint8Array(await result.arrayBuffer())), /Made on A, fetched from B/);
    // Ownership holds across nodes too.
    assert.equal((await fetch(`${a.base}/api/v1/jobs/${id}`, { headers: bearer(KEYS.core) })).status, 404);
  });

  it('a session created on A takes operations on B and is rendered on B', async () => {
    const created = await postJson(a.base, '/api/v1/sessions', { page_size: 'Letter' });
    assert.equal(created.status, 201);
    const { session_id: id } = ((await created.json()) as { data: { session_id: string } }).data;
    assert.equal((await postJson(b.base, `/api/v1/sessions/${id}/text`, { text: 'First, through B' })).status, 200);
    assert.equal((await postJson(a.base, `/api/v1/sessions/${id}/text`, { text: 'Second, through A' })).status, 200);
    const rendered = await postJson(b.base, `/api/v1/sessions/${id}/render`, '');
    assert.equal(rendered.status, 200);
    const text = await pdfToText(new Uint8Array(await rendered.arrayBuffer()));
    assert.match(text, /First, through B[\s\S]*Second, through A/);
    const again = await postJson(a.base, `/api/v1/sessions/${id}/text`, { text: 'too late' });
    assert.equal((await readProblem(again)).slug, 'session-not-active');
  });

  it('one Idempotency-Key used on A and B in parallel makes exactly one job', async () => {
    const headers = { 'idempotency-key': `cluster-${Date.now()}` };
    const body = textDocument('Only once');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postJson(i % 2 === 0 ? a.base : b.base, '/api/v1/jobs', body, headers)));
    assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([201]));
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as { data: Job }).data.job_id)));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
    const conflict = await postJson(b.base, '/api/v1/jobs', textDocument('Another body'), headers);
    assert.equal((await readProblem(conflict)).slug, 'idempotency-conflict');
  });

  it('an approval requested on A is decided on B and spent once, on either node', async () => {
    const rendered = await postJson(a.base, '/api/v1/render', textDocument('To be linearized'));
    const pdf = Buffer.from(await rendered.arrayBuffer()).toString('base64');
    const call = { pdf_data: pdf };
    const requested = await postJson(a.base, '/v1/linearize', call);
    assert.equal(requested.status, 202);
    const { approval_id: id } = ((await requested.json()) as { data: { approval_id: string } }).data;
    const listed = await fetch(`${b.base}/api/v1/approvals`, { headers: bearer(KEYS.approver) });
    const pending = ((await listed.json()) as { data: { approvals: Array<{ approval_id: string }> } }).data.approvals;
    assert.ok(pending.some((approval) => approval.approval_id === id));
    const approved = await fetch(`${b.base}/api/v1/approvals/${id}/approve`, { method: 'POST', headers: bearer(KEYS.approver) });
    assert.equal(approved.status, 200);
    const runs = await Promise.all([a.base, b.base, a.base, b.base].map((base) => postJson(base, '/v1/linearize', call, { 'approval-id': id })));
    const statuses = await Promise.all(runs.map(async (r) => (await r.arrayBuffer(), r.status)));
    assert.deepEqual(statuses.sort(), [200, 409, 409, 409]);
  });

  it('a client rate limit is shared by both nodes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${i % 2 === 0 ? a.base : b.base}/api/v1/capabilities`, { headers: bearer(LIMITED) });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 6);
    assert.equal(statuses.filter((s) => s === 429).length, 4);
  });

  it('GET /v1/cluster/status lists both nodes, healthy, from either node', async () => {
    const response = await fetch(`${b.base}/v1/cluster/status`, { headers: bearer(KEYS.enterprise) });
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      data: { cluster_id: string; node_count: number; healthy_nodes: number; nodes: Array<{ node_id: string; address: string; status: string; memory_mb: number }> };
    };
    assert.equal(body.data.cluster_id, 'platen');
    assert.equal(body.data.node_count, 2);
    assert.equal(body.data.healthy_nodes, 2);
    const addresses = body.data.nodes.map((node) => `http://${node.address}`).sort();
    assert.deepEqual(addresses, [a.base, b.base].sort());
    assert.ok(body.data.nodes.every((node) => node.status === 'healthy' && node.memory_mb > 0));
    const health = (await (await fetch(`${a.base}/health`)).json()) as { mode: string };
    assert.equal(health.mode, 'cluster');
  });

  it('while Redis is down: 503 store-unavailable with Retry-After, not ready, renders still work (registered fonts as last read); then it recovers', async () => {
    await redis.stop();
    try {
      const submitted = await postJson(a.base, '/api/v1/jobs', textDocument('during the outage'));
      assert.equal(submitted.status, 503);
      assert.ok(Number(submitted.headers.get('retry-after')) >= 1);
      assert.equal((await readProblem(submitted)).slug, 'store-unavailable');
      const ready = await fetch(`${b.base}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(((await ready.json()) as { checks: { redis: boolean } }).checks.redis, false);
      const render = await postJson(b.base, '/api/v1/render', textDocument('sync still works'));
      assert.equal(render.status, 200, render.status === 200 ? '' : JSON.stringify(await readProblem(render)));
      await render.arrayBuffer();
      // A client whose registered fonts this node never read: a render naming none goes ahead, one naming a
      // family that may be registered waits for Redis (503), rather than hearing that the font does not exist.
      const plain = await postJson(b.base, '/api/v1/render', textDocument('no registered font'), bearer(KEYS.core));
      assert.equal(plain.status, 200, plain.status === 200 ? '' : JSON.stringify(await readProblem(plain)));
      await plain.arrayBuffer();
      const named = await postJson(b.base, '/api/v1/render', { operations: [{ type: 'set_font', family: 'House Sans' }, { type: 'add_text', text: 'x' }] }, bearer(KEYS.core));
      assert.equal(named.status, 503);
      assert.equal((await readProblem(named)).slug, 'store-unavailable');
      const status = await fetch(`${a.base}/v1/cluster/status`, { headers: bearer(KEYS.enterprise) });
      assert.equal(status.status, 503);
      assert.ok(typeof (await readProblem(status)).retry_after === 'number');
    } finally {
      await redis.start();
    }
    // Each node reconnects on its own schedule; a load balancer routes by /readyz, so the job goes in once both say
    // they are ready (a poll of B while it still reconnects is a correct 503, and made this test flaky).
    for (const node of [a, b]) {
      await waitFor(
        async () => {
          const ready = await fetch(`${node.base}/readyz`);
          await ready.arrayBuffer();
          return ready.status === 200;
        },
        { timeoutMs: 20_000, intervalMs: 100, what: `${node.base} ready again after Redis came back` },
      );
    }
    const id = await waitFor(
      async () => {
        const submitted = await postJson(a.base, '/api/v1/jobs', textDocument('after the outage'));
        if (submitted.status === 201) return ((await submitted.json()) as { data: Job }).data.job_id;
        await submitted.arrayBuffer();
        return undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'a job accepted after Redis came back' },
    );
    await poll(b.base, id, (job) => job.status === 'completed');
  });
});

describe('a node that dies mid-job', () => {
  it('does not lose the job: another node runs it again and it completes', async () => {
    const redis = await startRedis();
    const a = await spawnServer(nodeEnv(redis, { PLATEN_WORKERS: '2' }));
    let b: SpawnedServer | undefined;
    try {
      // Long enough to still be running when A is killed: several hundred pages.
      const paragraphs = Array.from({ length: 6000 }, (_, i) => `Paragraph ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(6)}`);
      const submitted = await postJson(a.base, '/api/v1/jobs', textDocument(...paragraphs));
      assert.equal(submitted.status, 201);
      const { job_id: id } = ((await submitted.json()) as { data: Job }).data;
      await poll(a.base, id, (job) => job.status === 'running');
      b = await spawnServer(nodeEnv(redis));
      await a.kill('SIGKILL');
      const done = await poll(b.base, id, (job) => job.status === 'completed', 60_000);
      assert.equal(done.status, 'completed');
      const result = await fetch(`${b.base}/api/v1/jobs/${id}/result`, { headers: bearer(KEYS.enterprise) });
      assert.equal(result.status, 200);
      const info = await pdfInfo(new Uint8Array(await result.arrayBuffer()));
      assert.ok(Number(info.Pages) > 50, `pages: ${info.Pages}`);
    } finally {
      await Promise.all([a.kill('SIGKILL'), b?.kill()]);
      await redis.stop();
    }
  });
});

describe('GET /v1/cluster/status in the embedded mode', () => {
  it('is a cluster of this one node, enterprise keys only', async () => {
    const t = await startTestServer({ PLATEN_CLUSTER_ID: 'solo', PLATEN_NODE_ID: 'node-1' });
    try {
      const contract = await loadContract('accel');
      const response = await fetch(`${t.base}/v1/cluster/status`, { headers: bearer(KEYS.enterprise) });
      assert.equal(response.status, 200);
      const body = (await assertMatchesContract(contract, 'get', '/v1/cluster/status', response)) as {
        data: { cluster_id: string; node_count: number; healthy_nodes: number; nodes: Array<Record<string, unknown>> };
      };
      assert.equal(body.data.cluster_id, 'solo');
      assert.equal(body.data.node_count, 1);
      assert.equal(body.data.healthy_nodes, 1);
      assert.equal(body.data.nodes[0]?.node_id, 'node-1');
      assert.equal(body.data.nodes[0]?.address, `127.0.0.1:${t.server.port}`);
      assert.equal(body.data.nodes[0]?.active_jobs, 0);
      const denied = await fetch(`${t.base}/v1/cluster/status`, { headers: bearer(KEYS.pro) });
      assert.equal(denied.status, 403);
      await assertMatchesContract(contract, 'get', '/v1/cluster/status', denied);
    } finally {
      await t.close();
    }
  });
});
