// POST /api/v1/extract-text (core) against a real server: text per page in
// reading order, the page selection syntax, blocks with boxes in the render
// API's own coordinates (text add_text placed at (x, y) reads back there),
// encrypted input, and its 422s; each answer checked against the contract.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourcePdf } from './helpers/docops-fixtures.js';
import { readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfToText } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

interface TextData {
  page_count: number;
  notice: string | null;
  pages: Array<{ page_number: number; text: string; blocks?: Array<{ text: string; x: number; y: number; width: number; height: number; font_size: number }> }>;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

test('extract-text', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.core): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/extract-text`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/extract-text', response.clone());
    return response;
  };
  const dataOf = async (response: Response): Promise<TextData> => {
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/json');
    return ((await response.json()) as { data: TextData }).data;
  };

  const letter = await renderPdf(server.base, {
    page_size: 'A4',
    operations: [
      { type: 'add_text', text: 'Quarterly report', x: 72, y: 100 },
      { type: 'add_text', text: 'Revenue grew in every region.', x: 72, y: 200 },
      { type: 'add_page' },
      { type: 'add_text', text: 'Second page text', x: 72, y: 100 },
      { type: 'add_page' },
      { type: 'add_text', text: 'Third page text', x: 300, y: 400 },
    ],
  });

  await t.test('plain text of every page, the same words pdftotext reads', async () => {
    const data = await dataOf(await call({ pdf: b64(letter) }));
    assert.equal(data.page_count, 3);
    assert.deepEqual(data.pages.map((p) => p.page_number), [1, 2, 3]);
    assert.equal(data.pages[0]?.blocks, undefined);
    const poppler = (await pdfToText(letter)).split('\f').map(normalise);
    assert.deepEqual(data.pages.map((p) => normalise(p.text)), poppler.slice(0, 3));
    assert.match(data.pages[0]?.text ?? '', /Quarterly report\n\nRevenue grew in every region\./);
  });

  await t.test('pages "3,1" in that order; blocks where add_text put them', async () => {
    const data = await dataOf(await call({ pdf: b64(letter), pages: '3,1', layout: 'blocks' }));
    assert.deepEqual(data.pages.map((p) => p.page_number), [3, 1]);
    const third = data.pages[0]?.blocks?.[0];
    assert.equal(third?.text, 'Third page text');
    assert.ok(Math.abs((third?.x ?? 0) - 300) <= 1 && Math.abs((third?.y ?? 0) - 400) <= 1, JSON.stringify(third));
    assert.deepEqual(data.pages[1]?.blocks?.map((b) => b.text), ['Quarterly report', 'Revenue grew in every region.']);
  });

  await t.test('an encrypted PDF with its password; without it 422 pdf-password-required on password', async () => {
    const locked = await sourcePdf({ label: 'Gamma', pages: 2, password: 'secret' });
    const data = await dataOf(await call({ pdf: b64(locked), password: 'secret', pages: '2' }));
    assert.equal(normalise(data.pages[0]?.text ?? ''), 'Gamma page 2');
    const problem = await readProblem(await call({ pdf: b64(locked) }));
    assert.equal(problem.slug, 'pdf-password-required');
    assert.equal(problem.errors?.[0]?.field, 'password');
  });

  await t.test('422s name the member: a page outside the document, not a PDF, an unknown layout', async () => {
    let problem = await readProblem(await call({ pdf: b64(letter), pages: '2-5' }));
    assert.equal(problem.slug, 'validation-failed');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['pages', 'OUT_OF_RANGE']]);
    problem = await readProblem(await call({ pdf: b64(new TextEncoder().encode('not a pdf')) }));
    assert.equal(problem.slug, 'invalid-pdf-data');
    assert.equal(problem.errors?.[0]?.field, 'pdf');
    problem = await readProblem(await call({ pdf: b64(letter), layout: 'columns' }));
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['layout', 'INVALID_ENUM']]);
  });

  await t.test('listed for core keys', async () => {
    const body = (await (await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) })).json()) as { data: { operations: string[] } };
    assert.ok(body.data.operations.includes('extract-text'));
  });
});
