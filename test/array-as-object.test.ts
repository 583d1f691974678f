// A JSON array where the contracts say `type: object` is the wrong type:
// 422 validation-failed, INVALID_TYPE on that field, as a number or a string
// there is. valibot's object and record schemas take arrays, so `"output": []`,
// fill-form's `"fields": []` and an accelerator's `"options": []` were
// answered 200 as if empty (workers/task/object-shapes.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, readProblem, renderPdf, textDocument } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('an array where an object goes', () => {
  let s: TestServer;
  let pdf: string;
  before(async () => {
    s = await startTestServer();
    pdf = Buffer.from(await renderPdf(s.base, textDocument('Array fields'))).toString('base64');
  });
  after(() => s.close());

  const cases: ReadonlyArray<{ route: string; body: () => Record<string, unknown>; field: string }> = [
    { route: '/api/v1/render', body: () => ({ ...textDocument('x'), output: [] }), field: 'output' },
    { route: '/api/v1/render', body: () => ({ ...textDocument('x'), metadata: [] }), field: 'metadata' },
    { route: '/api/v1/render', body: () => ({ operations: [{ type: 'add_table', rows: [['a']], border: [] }] }), field: 'operations[0].border' },
    { route: '/api/v1/jobs', body: () => ({ ...textDocument('x'), output: [] }), field: 'output' },
    { route: '/api/v1/fill-form', body: () => ({ pdf, fields: [] }), field: 'fields' },
    { route: '/api/v1/sign', body: () => ({ pdf, certificate: [] }), field: 'certificate' },
    { route: '/v1/parse', body: () => ({ pdf_data: pdf, options: [] }), field: 'options' },
    { route: '/v1/linearize', body: () => ({ pdf_data: pdf, options: [] }), field: 'options' },
    { route: '/v1/rag/search', body: () => ({ query: 'x', vector_store: { backend: 'embedded', collection: 'c' }, options: { filter: [] } }), field: 'options.filter' },
  ];
  for (const c of cases) {
    test(`${c.route}: ${c.field} [] is 422 INVALID_TYPE on ${c.field}`, async () => {
      const response = await postJson(s.base, c.route, c.body());
      assert.equal(response.status, 422);
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'validation-failed');
      assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [[c.field, 'INVALID_TYPE']]);
      assert.match(problem.detail, new RegExp(`^${c.field.replace(/[[\].]/g, '\\$&')}: `));
    });
  }

  test('a number where an object goes is INVALID_TYPE too, not INVALID_VALUE', async () => {
    const response = await postJson(s.base, '/api/v1/render', { ...textDocument('x'), output: 5 });
    assert.deepEqual((await readProblem(response)).errors?.map((e) => [e.field, e.code]), [['output', 'INVALID_TYPE']]);
  });

  test('arrays where arrays go are still taken', async () => {
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_table', rows: [['a', 'b']] }] });
    assert.equal(response.status, 200);
  });
});
