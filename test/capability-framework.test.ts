// What every capability operation gets from its one declaration
// (src/render/capability-routes.ts): registration by edition, the listing in
// /api/v1/capabilities, and the approval gate by operation name. Shown on
// the core operations; the tier check (403) is the pipeline's, tested on a
// pro route in pipeline.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourcePdf } from './helpers/docops-fixtures.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfToText } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

const ALPHA = await sourcePdf({ label: 'Alpha', pages: 2 });

async function post(base: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

test('a core edition registers the core operations and lists them for every key', async (t) => {
  const server = await startTestServer({ PLATEN_EDITION: 'core' });
  t.after(() => server.close());
  const body = (await (await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.enterprise) })).json()) as { data: { operations: string[] } };
  for (const operation of ['extract-text', 'merge', 'split']) assert.ok(body.data.operations.includes(operation), operation);
  const split = await post(server.base, '/api/v1/split', { pdf: Buffer.from(ALPHA).toString('base64'), pages: '2' }, KEYS.core);
  assert.equal(split.status, 200);
});

test('an operation named in PLATEN_APPROVAL_REQUIRED runs only with an approval of that exact call', async (t) => {
  const server = await startTestServer({ PLATEN_APPROVAL_REQUIRED: 'split' });
  t.after(() => server.close());
  const request = { pdf: Buffer.from(ALPHA).toString('base64'), pages: '2' };
  const asked = await post(server.base, '/api/v1/split', request, KEYS.core);
  assert.equal(asked.status, 202);
  const approval = ((await asked.json()) as { data: { approval_id: string; operation: string } }).data;
  assert.equal(approval.operation, 'split');
  // merge is not named: it runs at once.
  assert.equal((await post(server.base, '/api/v1/merge', { documents: [{ pdf: request.pdf }] }, KEYS.core)).status, 200);
  const early = await post(server.base, '/api/v1/split', request, KEYS.core, { 'approval-id': approval.approval_id });
  assert.equal((await readProblem(early)).slug, 'approval-pending');
  const decided = await post(server.base, `/api/v1/approvals/${approval.approval_id}/approve`, {}, KEYS.approver);
  assert.equal(decided.status, 200);
  const ran = await post(server.base, '/api/v1/split', request, KEYS.core, { 'approval-id': approval.approval_id });
  assert.equal(ran.status, 200);
  assert.equal(ran.headers.get('content-type'), 'application/pdf');
  assert.match(await pdfToText(new Uint8Array(await ran.arrayBuffer())), /Alpha page 2/);
});
