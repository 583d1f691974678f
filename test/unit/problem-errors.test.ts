// Every 422 of both APIs carries errors[] with at least one entry, content
// problems included (render contract, Problem; issue 10): the problem
// factory gives a 422 without a field of its own one entry for the body.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { problemBody } from '../../src/http/problem.js';

const context = { errorsBase: 'https://platen.dev/errors', instance: '/v1/linearize', requestId: 'r1' } as const;

test('a 422 without errors gets one entry for the body; one with errors keeps them; other statuses have none', () => {
  for (const family of ['render', 'accel'] as const) {
    const bare = JSON.parse(problemBody('invalid-pdf-data', { detail: 'The PDF is damaged.' }, { ...context, family })) as { errors: unknown[] };
    assert.deepEqual(bare.errors, [{ field: '(body)', code: 'INVALID_VALUE', message: 'The PDF is damaged.' }]);
    const empty = JSON.parse(problemBody('validation-failed', { detail: 'Too big.', errors: [] }, { ...context, family })) as { errors: unknown[] };
    assert.equal(empty.errors.length, 1);
    const named = JSON.parse(problemBody('validation-failed', { detail: 'x', errors: [{ field: 'a', code: 'REQUIRED', message: 'm' }] }, { ...context, family })) as { errors: unknown[] };
    assert.deepEqual(named.errors, [{ field: 'a', code: 'REQUIRED', message: 'm' }]);
    assert.equal('errors' in (JSON.parse(problemBody('not-found', { detail: 'x' }, { ...context, family })) as object), false);
  }
});

test('content problems name their member: /v1/linearize refusing a PDF names pdf_data', async () => {
  const { linearize } = await import('../../workers/index.js');
  for (const pdf of ['hello', '%PDF-1.7\n1 0 obj\n<<>>\nendobj\n']) {
    const body = new TextEncoder().encode(JSON.stringify({ pdf_data: Buffer.from(pdf).toString('base64') }));
    const outcome = await linearize({ body: body.buffer as ArrayBuffer, length: body.length, options: {} });
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.code, 'invalid-pdf-data');
    assert.deepEqual(outcome.errors?.map((e) => [e.field, e.code]), [['pdf_data', 'INVALID_PDF']]);
  }
});
