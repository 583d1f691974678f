// POST /v1/compare end to end: PDFs rendered by the server itself (and one
// encrypted with qpdf), compared through the real pipeline. Every answer is
// checked against the accelerator contract; a changed word's position is
// checked against poppler's pdftotext -bbox of the second document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { qpdfTransform, wordBoxes } from './helpers/pdf-tools.js';
import { renderPdf } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const PATH = '/v1/compare';

interface Change {
  type: string;
  page: number;
  before: string;
  after: string;
  position: { x: number; y: number };
  text?: string;
}

interface Data {
  summary: { pages_changed: number; text_additions: number; text_deletions: number; image_changes: number };
  changes: Change[];
  changes_truncated: boolean;
}

let s: TestServer;
let accel: Contract;

const b64 = (pdf: Uint8Array) => Buffer.from(pdf).toString('base64');

async function call(body: unknown, key: string = KEYS.pro, server: TestServer = s): Promise<{ status: number; body: Node }> {
  const response = await fetch(`${server.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
  return { status: response.status, body: (await assertMatchesContract(accel, 'post', PATH, response)) as Node };
}

async function compare(a: Uint8Array, b: Uint8Array, options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<Data> {
  const answer = await call({ pdf_a: b64(a), pdf_b: b64(b), options, ...extra });
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 600));
  return answer.body.data as unknown as Data;
}

async function problem(body: unknown): Promise<{ slug: string; detail: string; errors: { field: string; code: string }[] }> {
  const answer = await call(body);
  assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 600));
  const type = String(answer.body.type);
  return { slug: type.slice(type.lastIndexOf('/') + 1), detail: String(answer.body.detail), errors: answer.body.errors as { field: string; code: string }[] };
}

const render = (operations: unknown[]) => renderPdf(s.base, { operations });
const PARAGRAPH = 'The bearings leave our warehouse on Friday and the carrier will call ahead before delivery to your site. '.repeat(5).trim();
const letter = (date: string, extra: unknown[] = []) =>
  render([{ type: 'add_text', text: 'Northwind Bearings' }, { type: 'add_text', text: `Leeds, ${date} March 2025` }, { type: 'add_text', text: PARAGRAPH }, ...extra]);

async function png(r: number, g: number, b: number): Promise<string> {
  return (await sharp({ create: { width: 40, height: 20, channels: 3, background: { r, g, b } } }).png().toBuffer()).toString('base64');
}

describe('POST /v1/compare', () => {
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
  });
  after(() => s.close());

  test('a document against itself has no change, in both modes and with formatting compared', async () => {
    const pdf = await letter('21', [{ type: 'add_page' }, { type: 'add_image', data: await png(200, 10, 10), x: 100, y: 100, width: 80, height: 40 }]);
    for (const mode of ['text', 'semantic']) {
      const data = await compare(pdf, pdf, { mode, ignore_formatting: false });
      assert.deepEqual(data, { summary: { pages_changed: 0, text_additions: 0, text_deletions: 0, image_changes: 0 }, changes: [], changes_truncated: false });
    }
  });

  test("one changed word is exactly one modification, at that word's position in the second document", async () => {
    const a = await letter('21');
    const b = await letter('24');
    const box = (await wordBoxes(b)).find((w) => w.word === '24');
    assert.ok(box);
    for (const mode of ['text', 'semantic']) {
      const data = await compare(a, b, { mode });
      assert.equal(data.changes.length, 1, JSON.stringify(data.changes));
      const [change] = data.changes as [Change];
      assert.deepEqual([change.type, change.page, change.before, change.after], ['modification', 1, '21', '24']);
      assert.ok(Math.abs(change.position.x - box.xMin) < 1.5 && Math.abs(change.position.y - box.yMin) < 3, `${JSON.stringify(change.position)} vs ${JSON.stringify(box)}`);
      assert.deepEqual(data.summary, { pages_changed: 1, text_additions: 1, text_deletions: 1, image_changes: 0 });
    }
  });

  test('a paragraph re-flowed to another width, and a word hyphenated at a line end, are no change in semantic mode', async () => {
    const a = await render([{ type: 'add_text', text: PARAGRAPH }, { type: 'add_text', text: 'A line with an example of hyphenation.' }]);
    const b = await render([{ type: 'add_text', text: PARAGRAPH, width: 260 }, { type: 'add_text', text: 'A line with an exam-\nple of hyphenation.' }]);
    assert.deepEqual((await compare(a, b, { mode: 'semantic' })).changes, []);
    // Text mode compares words as drawn: the hyphenated halves are a change.
    const text = await compare(a, b, { mode: 'text' });
    assert.deepEqual(text.changes.map((c) => [c.type, c.before, c.after]), [['modification', 'example', 'exam- ple']]);
  });

  test('text re-flowed onto a new page: semantic mode sees no change, text mode sees the moved words', async () => {
    const long = Array.from({ length: 12 }, () => PARAGRAPH).join('\n\n');
    const a = await render([{ type: 'add_text', text: long }]);
    const b = await render([{ type: 'set_font', size: 14 }, { type: 'add_text', text: long }]);
    const semantic = await compare(a, b, { mode: 'semantic', ignore_formatting: true });
    assert.deepEqual(semantic.changes, []);
    const text = await compare(a, b, { mode: 'text', ignore_formatting: true });
    assert.ok(text.changes.length > 0);
  });

  test('a page inserted is one page_added; taken out again, one page_removed; later pages are unchanged', async () => {
    const pages = (texts: string[]) => render(texts.flatMap((text, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), { type: 'add_text', text }]));
    const a = await pages(['Chapter one begins here.', 'Chapter two follows.', 'Chapter three ends it.']);
    const b = await pages(['Chapter one begins here.', 'An interlude nobody expected.', 'Chapter two follows.', 'Chapter three ends it.']);
    for (const mode of ['text', 'semantic']) {
      const added = await compare(a, b, { mode });
      assert.deepEqual(added.changes.map((c) => [c.type, c.page]), [['page_added', 2]], mode);
      assert.match(added.changes[0]?.after ?? '', /interlude/);
      const removed = await compare(b, a, { mode });
      assert.deepEqual(removed.changes.map((c) => [c.type, c.page]), [['page_removed', 2]], mode);
    }
  });

  test('images: other pixels in the same place are image_changed; moved too; removed and added', async () => {
    const red = await png(200, 10, 10);
    const blue = await png(10, 10, 200);
    const page = (images: unknown[]) => render([{ type: 'add_text', text: 'Figure 1' }, ...images]);
    const at = (data: string, x: number) => ({ type: 'add_image', data, x, y: 100, width: 80, height: 40 });
    const a = await page([at(red, 100)]);
    const changed = await compare(a, await page([at(blue, 100)]));
    assert.deepEqual(changed.changes.map((c) => [c.type, c.page, c.position.x, c.position.y]), [['image_changed', 1, 100, 100]]);
    assert.notEqual(changed.changes[0]?.before, changed.changes[0]?.after);
    assert.equal(changed.summary.image_changes, 1);
    const moved = await compare(a, await page([at(red, 300)]));
    assert.deepEqual(moved.changes.map((c) => [c.type, c.position.x]), [['image_changed', 300]]);
    assert.deepEqual((await compare(a, await page([]))).changes.map((c) => c.type), ['image_removed']);
    assert.deepEqual((await compare(a, await page([at(red, 100), at(blue, 300)]))).changes.map((c) => [c.type, c.position.x]), [['image_added', 300]]);
  });

  test('a word set bold is a format change unless formatting is ignored', async () => {
    const a = await render([{ type: 'add_text', text: 'Payment is due within thirty days.' }]);
    const b = await render([{ type: 'add_text', text: 'Payment is due within' }, { type: 'add_text', text: 'thirty days.', bold: true }]);
    const plain = await render([{ type: 'add_text', text: 'Payment is due within' }, { type: 'add_text', text: 'thirty days.' }]);
    const data = await compare(a, b, { mode: 'semantic', ignore_formatting: false });
    assert.deepEqual(data.changes.map((c) => [c.type, c.text]), [['format', 'thirty days.']]);
    assert.match(data.changes[0]?.before ?? '', /^Helvetica 12pt #000000$/);
    assert.match(data.changes[0]?.after ?? '', /^Helvetica-Bold 12pt #000000$/);
    assert.deepEqual((await compare(a, b, { mode: 'semantic', ignore_formatting: true })).changes, []);
    assert.deepEqual((await compare(a, plain, { mode: 'semantic', ignore_formatting: false })).changes, []);
  });

  test('page_range compares the same pages of both; past the end of one, its pages are all removed', async () => {
    const pages = (texts: string[]) => render(texts.flatMap((text, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), { type: 'add_text', text }]));
    const a = await pages(['One', 'Two', 'Three']);
    const b = await pages(['One', 'Zwei']);
    assert.deepEqual((await compare(a, b, { mode: 'text', page_range: [1, 1] })).changes, []);
    assert.deepEqual((await compare(a, b, { mode: 'text', page_range: [2, 9] })).changes.map((c) => [c.type, c.page, c.before, c.after].join(' ')), ['modification 2 Two Zwei', 'page_removed 3 page 3: 1 words, 0 images: Three ']);
    assert.deepEqual((await compare(a, b, { page_range: [3, 3] })).changes.map((c) => [c.type, c.page]), [['page_removed', 3]]);
  });

  test('bad requests: 422 with errors[] naming the field', async () => {
    const pdf = b64(await render([{ type: 'add_text', text: 'x' }]));
    assert.deepEqual((await problem({ pdf_a: pdf, pdf_b: pdf, options: { page_range: [0, 2] } })).errors.map((e) => [e.field, e.code]), [['options.page_range', 'OUT_OF_RANGE']]);
    assert.deepEqual((await problem({ pdf_a: pdf, pdf_b: pdf, options: { page_range: [3, 2] } })).errors.map((e) => [e.field, e.code]), [['options.page_range', 'INVALID_VALUE']]);
    assert.deepEqual((await problem({ pdf_a: pdf, pdf_b: pdf, options: { page_range: [5, 9] } })).errors.map((e) => [e.field, e.code]), [['options.page_range', 'OUT_OF_RANGE']]);
    assert.deepEqual((await problem({ pdf_a: pdf, pdf_b: pdf, options: { page_range: [1, 1, 1] } })).errors.map((e) => [e.field, e.code]), [['options.page_range', 'TOO_LONG']]);
    assert.deepEqual((await problem({ pdf_a: pdf, pdf_b: pdf, options: { mode: 'visual' } })).errors.map((e) => e.field), ['options.mode']);
    assert.deepEqual((await problem({ pdf_a: pdf })).errors.map((e) => [e.field, e.code]), [['pdf_b', 'REQUIRED']]);
    const notPdf = await problem({ pdf_a: pdf, pdf_b: Buffer.from('hello, not a PDF').toString('base64') });
    assert.equal(notPdf.slug, 'invalid-pdf-data');
    assert.deepEqual(notPdf.errors.map((e) => e.field), ['pdf_b']);
  });

  test('an encrypted first document opens with password_a; without it, 422 pdf-password-required on password_a', async () => {
    const plain = await letter('21');
    const locked = await qpdfTransform(plain, ['--encrypt', 'open-sesame', 'owner-pw', '256', '--']);
    const missing = await problem({ pdf_a: b64(locked), pdf_b: b64(plain) });
    assert.equal(missing.slug, 'pdf-password-required');
    assert.deepEqual(missing.errors.map((e) => [e.field, e.code]), [['password_a', 'REQUIRED']]);
    // The detail names the field compare takes; it said "send it in password", a field compare refuses.
    assert.match(missing.detail, /pdf_a .*send it in password_a\./);
    const wrong = await problem({ pdf_a: b64(plain), pdf_b: b64(locked), password_b: 'guess' });
    assert.deepEqual(wrong.errors.map((e) => [e.field, e.code]), [['password_b', 'INCORRECT']]);
    assert.match(wrong.detail, /password_b does not open the PDF in pdf_b/);
    assert.deepEqual((await compare(locked, plain, {}, { password_a: 'open-sesame' })).changes, []);
  });

  test('core keys get 403 capability-denied; a core-only deployment has no such route (404)', async () => {
    const pdf = b64(await render([{ type: 'add_text', text: 'x' }]));
    const body = { pdf_a: pdf, pdf_b: pdf };
    const denied = await call(body, KEYS.core);
    assert.equal(denied.status, 403);
    assert.match(String(denied.body.type), /\/capability-denied$/);
    const core = await startTestServer({ PLATEN_EDITION: 'core' });
    try {
      const response = await fetch(`${core.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(KEYS.core) }, body: JSON.stringify(body) });
      assert.equal(response.status, 404);
      await response.arrayBuffer();
    } finally {
      await core.close();
    }
  });
});
