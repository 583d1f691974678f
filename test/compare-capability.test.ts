// POST /api/v1/compare (pro) against a real server: the accelerator's
// comparison behind the render API's request (pdf_a/pdf_b, mode,
// ignore_formatting, pages in the shared selection syntax), the tier gate,
// and the contract's documented responses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { startTestServer } from './helpers/server.js';

interface Comparison {
  summary: { pages_changed: number; text_additions: number; text_deletions: number; image_changes: number };
  changes: Array<{ type: string; page: number; before: string; after: string; position: { x: number; y: number } }>;
  changes_truncated: boolean;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

test('compare', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.pro): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/compare`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/compare', response.clone());
    return response;
  };
  const dataOf = async (response: Response): Promise<Comparison> => {
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Comparison }).data;
  };
  const doc = (word: string) =>
    renderPdf(server.base, {
      operations: [
        { type: 'add_text', text: `Revenue ${word} in every region.`, x: 72, y: 200 },
        { type: 'add_page' },
        { type: 'add_text', text: 'Second page stays the same.', x: 72, y: 100 },
      ],
    });
  const before = await doc('grew');
  const after = await doc('fell');

  await t.test('a document against itself: no change', async () => {
    const data = await dataOf(await call({ pdf_a: b64(before), pdf_b: b64(before) }));
    assert.deepEqual(data.changes, []);
    assert.equal(data.summary.pages_changed, 0);
  });

  await t.test('one changed word: one modification at that word, in both modes', async () => {
    for (const mode of ['semantic', 'text'] as const) {
      const data = await dataOf(await call({ pdf_a: b64(before), pdf_b: b64(after), mode }));
      assert.equal(data.changes.length, 1, `${mode}: ${JSON.stringify(data.changes)}`);
      const change = data.changes[0];
      assert.equal(change?.type, 'modification');
      assert.equal(change?.before, 'grew');
      assert.equal(change?.after, 'fell');
      assert.equal(change?.page, 1);
      assert.ok(Math.abs((change?.position.y ?? 0) - 200) <= 1, JSON.stringify(change));
    }
  });

  await t.test('pages selects the pages of both documents', async () => {
    const data = await dataOf(await call({ pdf_a: b64(before), pdf_b: b64(after), pages: '2' }));
    assert.deepEqual(data.changes, []);
    const problem = await readProblem(await call({ pdf_a: b64(before), pdf_b: b64(after), pages: '5-' }));
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['pages', 'OUT_OF_RANGE']]);
    const malformed = await readProblem(await call({ pdf_a: b64(before), pdf_b: b64(after), pages: '2-1' }));
    assert.deepEqual(malformed.errors?.map((e) => [e.field, e.code]), [['pages', 'OUT_OF_RANGE']]);
  });

  await t.test('422 naming the member: pdf_b not a PDF', async () => {
    const problem = await readProblem(await call({ pdf_a: b64(before), pdf_b: b64(new TextEncoder().encode('nope')) }));
    assert.equal(problem.slug, 'invalid-pdf-data');
    assert.equal(problem.errors?.[0]?.field, 'pdf_b');
  });

  await t.test('core keys: 403 capability-denied, and not listed for them', async () => {
    const response = await call({ pdf_a: b64(before), pdf_b: b64(before) }, KEYS.core);
    assert.equal(response.status, 403);
    assert.equal((await readProblem(response)).slug, 'capability-denied');
    const core = (await (await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).json()) as { data: { operations: string[] } };
    assert.equal(core.data.operations.includes('compare'), false);
    const pro = (await (await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.pro) })).json()) as { data: { operations: string[] } };
    assert.equal(pro.data.operations.includes('compare'), true);
  });
});

test('a core edition does not register compare: 404', async (t) => {
  const server = await startTestServer({ PLATEN_EDITION: 'core' });
  t.after(() => server.close());
  const response = await fetch(`${server.base}/api/v1/compare`, { method: 'POST', headers: { ...bearer(KEYS.enterprise), 'content-type': 'application/json' }, body: '{}' });
  assert.equal(response.status, 404);
  assert.equal((await readProblem(response)).slug, 'not-found');
});
