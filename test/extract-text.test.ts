// POST /v1/extract-text end to end: PDFs rendered by the server itself,
// written by hand (render mode 3, /Rotate) and changed by qpdf (encryption),
// through the real pipeline. Every answer is checked against the
// accelerator contract; positions are checked against where add_text put
// the text and against poppler's pdftotext -bbox.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { qpdfTransform, wordBoxes } from './helpers/pdf-tools.js';
import { renderPdf } from './helpers/http.js';
import { rawPdf } from './helpers/raw-pdf.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const PATH = '/v1/extract-text';

interface Span {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
  font: string;
  font_size: number;
  color: string;
  bold: boolean;
  italic: boolean;
  rotation: number;
  invisible: boolean;
  reading_order: number;
}

interface Page {
  page_number: number;
  width: number;
  height: number;
  spans: Span[];
}

interface Data {
  page_count: number;
  notice: string | null;
  pages: Page[];
}

function closeColour(actual: string, expected: string): boolean {
  const channels = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  const a = channels(actual);
  return channels(expected).every((value, i) => Math.abs(value - (a[i] as number)) <= 1);
}

let s: TestServer;
let accel: Contract;

async function call(body: unknown, key: string = KEYS.pro, server: TestServer = s): Promise<{ status: number; body: Node }> {
  const response = await fetch(`${server.base}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await assertMatchesContract(accel, 'post', PATH, response)) as Node };
}

async function extract(pdf: Uint8Array, extra: Record<string, unknown> = {}): Promise<Data> {
  const answer = await call({ pdf_data: Buffer.from(pdf).toString('base64'), ...extra });
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 600));
  return answer.body.data as unknown as Data;
}

async function problem(body: unknown): Promise<{ slug: string; errors: { field: string; code: string }[] }> {
  const answer = await call(body);
  assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 600));
  const type = String(answer.body.type);
  return { slug: type.slice(type.lastIndexOf('/') + 1), errors: answer.body.errors as { field: string; code: string }[] };
}

const pages = (count: number) => renderPdf(s.base, { operations: Array.from({ length: count }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), { type: 'add_text', text: `Page ${i + 1}` }]).flat() });

describe('POST /v1/extract-text', () => {
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
  });
  after(() => s.close());

  test('spans come back where add_text put them, with font, size, colour and weight', async () => {
    const pdf = await renderPdf(s.base, {
      page_size: 'A4',
      operations: [
        { type: 'set_font', family: 'Helvetica', bold: true, size: 18, color: '#1f2937' },
        { type: 'add_text', text: 'Northwind Bearings', x: 56, y: 60 },
        { type: 'set_font', family: 'Times', bold: false, italic: true, size: 11, color: '#b91c1c' },
        { type: 'add_text', text: 'Leeds, 21 March 2025', x: 400, y: 130 },
      ],
    });
    const data = await extract(pdf);
    assert.equal(data.page_count, 1);
    assert.equal(data.notice, null);
    const [page] = data.pages;
    assert.ok(page);
    assert.deepEqual([page.page_number, page.width, page.height], [1, 595.28, 841.89]);
    const head = page.spans.find((span) => span.text === 'Northwind Bearings');
    assert.ok(head, JSON.stringify(page.spans));
    assert.ok(Math.abs(head.x - 56) < 1 && Math.abs(head.y - 60) < 1, `head at (${head.x}, ${head.y})`);
    assert.deepEqual([head.font, head.font_size, head.bold, head.italic], ['Helvetica-Bold', 18, true, false]);
    // The render engine writes colour components with three decimals: each channel comes back within 1 of 255.
    assert.ok(closeColour(head.color, '#1f2937'), head.color);
    const date = page.spans.find((span) => span.text === 'Leeds, 21 March 2025');
    assert.ok(date);
    assert.ok(Math.abs(date.x - 400) < 1 && Math.abs(date.y - 130) < 1, `date at (${date.x}, ${date.y})`);
    assert.deepEqual([date.font, date.font_size, date.bold, date.italic], ['Times-Italic', 11, false, true]);
    assert.ok(closeColour(date.color, '#b91c1c'), date.color);
    assert.deepEqual(page.spans.map((span) => span.reading_order), page.spans.map((_, i) => i));
  });

  test('granularity word and char: boxes agree with poppler\'s words within half a point', async () => {
    const pdf = await renderPdf(s.base, { operations: [{ type: 'set_font', family: 'Helvetica', size: 14 }, { type: 'add_text', text: 'Quick brown foxes jump, quietly.', x: 72, y: 200 }] });
    const words = (await extract(pdf, { options: { granularity: 'word' } })).pages[0]?.spans ?? [];
    const poppler = await wordBoxes(pdf);
    assert.deepEqual(words.map((w) => w.text), poppler.map((w) => w.word));
    for (const [i, word] of words.entries()) {
      const box = poppler[i];
      assert.ok(box && Math.abs(word.x - box.xMin) < 0.5 && Math.abs(word.x + word.width - box.xMax) < 0.5, `${word.text}: ours ${word.x}+${word.width}, poppler ${box?.xMin}-${box?.xMax}`);
    }
    const chars = (await extract(pdf, { options: { granularity: 'char' } })).pages[0]?.spans ?? [];
    assert.equal(chars.map((c) => c.text).join(''), 'Quickbrownfoxesjump,quietly.');
    assert.ok(chars.every((c, i) => i === 0 || c.x >= (chars[i - 1] as Span).x));
  });

  test('a two-column page reads down the first column, then the second', async () => {
    const left = 'The first column opens the story. It runs down the left half of the page in several lines of text. '.repeat(3);
    const right = 'The second column continues it on the right. Its lines sit beside those of the first column. '.repeat(3);
    const pdf = await renderPdf(s.base, {
      page_size: 'A4',
      operations: [
        { type: 'set_font', family: 'Helvetica', bold: true, size: 16 },
        { type: 'add_text', text: 'A heading across both columns', x: 56, y: 60 },
        { type: 'set_font', family: 'Times', bold: false, size: 11 },
        { type: 'add_text', text: left, x: 56, y: 100, width: 230 },
        { type: 'add_text', text: right, x: 310, y: 100, width: 230 },
      ],
    });
    const spans = (await extract(pdf)).pages[0]?.spans ?? [];
    const text = spans.map((span) => span.text).join(' ');
    const heading = text.indexOf('A heading');
    const firstEnd = text.lastIndexOf('several lines of text.');
    const secondStart = text.indexOf('The second column');
    assert.ok(heading === 0 && firstEnd !== -1 && secondStart > firstEnd, text);
    const firstColumn = spans.filter((span) => span.x < 300 && span.y > 90);
    const secondColumn = spans.filter((span) => span.x >= 300);
    assert.ok(Math.max(...firstColumn.map((x) => x.reading_order)) < Math.min(...secondColumn.map((x) => x.reading_order)));
  });

  test('render mode 3 is invisible; gray comes back as RGB; a /Rotate 90 page is reported as displayed', async () => {
    const hidden = rawPdf([{ content: 'BT /F1 12 Tf 0.2 g 1 0 0 1 72 700 Tm (Seen) Tj ET\nBT /F1 12 Tf 3 Tr 1 0 0 1 72 680 Tm (OCR layer) Tj ET' }]);
    const spans = (await extract(hidden)).pages[0]?.spans ?? [];
    // The fill colour is graphics state, not text state: it outlives ET.
    assert.deepEqual(spans.map((span) => [span.text, span.invisible, span.color]), [['Seen', false, '#333333'], ['OCR layer', true, '#333333']]);
    const turned = await qpdfTransform(rawPdf([{ content: 'BT /F1 12 Tf 1 0 0 1 72 700 Tm (Turned) Tj ET' }]), ['--rotate=+90']);
    const page = (await extract(turned)).pages[0];
    assert.ok(page);
    assert.deepEqual([page.width, page.height, page.spans[0]?.rotation], [792, 612, 90]);
  });

  test('page_range: clamped past the end; 422 with errors[] before page 1, out of order, or past the end', async () => {
    const pdf = Buffer.from(await pages(3)).toString('base64');
    const clamped = await extract(Buffer.from(pdf, 'base64'), { options: { page_range: [2, 99] } });
    assert.deepEqual(clamped.pages.map((page) => [page.page_number, page.spans.map((span) => span.text).join(' ')]), [[2, 'Page 2'], [3, 'Page 3']]);
    for (const range of [[0, 2], [3, 2], [4, 5]]) {
      const refused = await problem({ pdf_data: pdf, options: { page_range: range } });
      assert.equal(refused.slug, 'validation-failed');
      assert.deepEqual(refused.errors.map((e) => e.field), ['options.page_range'], JSON.stringify(range));
    }
    const badShape = await problem({ pdf_data: pdf, options: { page_range: [1] } });
    assert.equal(badShape.errors[0]?.field.startsWith('options.page_range'), true);
    // Three items were read as [1, 2] and the third dropped; the contract says two (maxItems, items: false).
    const three = await problem({ pdf_data: pdf, options: { page_range: [1, 2, 3] } });
    assert.deepEqual(three.errors.map((e) => [e.field, e.code]), [['options.page_range', 'TOO_LONG']]);
  });

  test('a range over PLATEN_MAX_PAGES is 422 TOO_LARGE; so is work over PLATEN_READ_WORK_BUDGET', async () => {
    const small = await startTestServer({ PLATEN_MAX_PAGES: '2', PLATEN_READ_WORK_BUDGET: '1000' });
    try {
      const pdf = Buffer.from(await renderPdf(small.base, { operations: [{ type: 'add_text', text: 'One' }, { type: 'add_page' }, { type: 'add_text', text: 'Two' }] })).toString('base64');
      const three = Buffer.from(await pages(3)).toString('base64');
      const tooMany = await call({ pdf_data: three }, KEYS.pro, small);
      assert.equal(tooMany.status, 422);
      assert.deepEqual((tooMany.body.errors as { field: string; code: string }[]).map((e) => [e.field, e.code]), [['options.page_range', 'TOO_LARGE']]);
      assert.equal((await call({ pdf_data: pdf }, KEYS.pro, small)).status, 200);
      const dense = rawPdf([{ content: Array.from({ length: 1200 }, (_, i) => `BT /F1 8 Tf 1 0 0 1 ${20 + (i % 40) * 14} ${20 + Math.floor(i / 40) * 10} Tm (x) Tj ET`).join('\n') }]);
      const overBudget = await call({ pdf_data: Buffer.from(dense).toString('base64') }, KEYS.pro, small);
      assert.equal(overBudget.status, 422);
      assert.deepEqual((overBudget.body.errors as { field: string; code: string }[]).map((e) => [e.field, e.code]), [['pdf_data', 'TOO_LARGE']]);
    } finally {
      await small.close();
    }
  });

  test('encrypted: 422 pdf-password-required without or with a wrong password; the right one reads it', async () => {
    const locked = Buffer.from(await qpdfTransform(await pages(1), ['--encrypt', 'open-sesame', 'owner-secret', '256', '--'])).toString('base64');
    const missing = await problem({ pdf_data: locked });
    assert.deepEqual([missing.slug, missing.errors.map((e) => [e.field, e.code])], ['pdf-password-required', [['password', 'REQUIRED']]]);
    const wrong = await problem({ pdf_data: locked, password: 'guess' });
    assert.deepEqual([wrong.slug, wrong.errors.map((e) => [e.field, e.code])], ['pdf-password-required', [['password', 'INCORRECT']]]);
    const opened = await extract(Buffer.from(locked, 'base64'), { password: 'open-sesame' });
    assert.equal(opened.pages[0]?.spans[0]?.text, 'Page 1');
  });

  test('not a PDF, damaged beyond repair, not base64: 422 with errors[]', async () => {
    const notPdf = await problem({ pdf_data: Buffer.from('just some words').toString('base64') });
    assert.deepEqual([notPdf.slug, notPdf.errors.map((e) => e.field)], ['invalid-pdf-data', ['pdf_data']]);
    const garbage = await problem({ pdf_data: Buffer.from(`%PDF-1.7\n${'\u0000garbage'.repeat(40)}`).toString('base64') });
    assert.equal(garbage.slug, 'invalid-pdf-data');
    const notBase64 = await problem({ pdf_data: '***' });
    assert.deepEqual([notBase64.slug, notBase64.errors.map((e) => [e.field, e.code])], ['validation-failed', [['pdf_data', 'INVALID_FORMAT']]]);
    const unknown = await problem({ pdf_data: 'JVBERi0=', options: { granularity: 'line' } });
    assert.deepEqual(unknown.errors.map((e) => [e.field, e.code]), [['options.granularity', 'INVALID_ENUM']]);
  });

  test('core keys get 403 capability-denied; a core-only deployment has no such route (404)', async () => {
    const body = { pdf_data: Buffer.from(await pages(1)).toString('base64') };
    const denied = await call(body, KEYS.core);
    assert.equal(denied.status, 403);
    assert.match(String(denied.body.type), /\/capability-denied$/);
    assert.equal((await call(body, KEYS.enterprise)).status, 200);
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
