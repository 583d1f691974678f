// POST /api/v1/render end to end, with the PDF checked by real tools.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, readProblem, textDocument, renderPdf } from './helpers/http.js';
import { pdfFonts, pdfInfo, pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('render work budget', () => {
  test('a document past PLATEN_MAX_PAGES is a 422 naming the operation, not a worker held to the timeout', async (t) => {
    const s = await startTestServer({ PLATEN_MAX_PAGES: '3' });
    t.after(() => s.close());
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_text', text: 'a' }, ...Array.from({ length: 5 }, () => ({ type: 'add_page' }))] });
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field: 'operations[3]', code: 'TOO_LARGE' });
    // Flowing text is bounded the same way: one character per line at width 1.
    const narrow = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_text', text: 'x'.repeat(100_000), width: 1 }] });
    assert.equal(narrow.status, 422);
  });
});

describe('render', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const render = (body: unknown): Promise<Uint8Array> => renderPdf(s.base, body);

  test('a document passes qpdf --check and pdftotext finds its text in order', async () => {
    const pdf = await render({
      operations: [
        { type: 'set_font', family: 'Times', bold: true, size: 18, color: '#1f2937' },
        { type: 'add_text', text: 'Quarterly report' },
        { type: 'set_font', family: 'Helvetica', size: 11 },
        { type: 'add_text', text: 'Revenue grew (as expected) by 12% — thanks to everyone.' },
        { type: 'add_text', text: 'Signed', x: 400, y: 700, color: '#c00' },
      ],
    });
    assert.match(await qpdfCheck(pdf), /No syntax or stream encoding errors/);
    const text = await pdfToText(pdf);
    const order = ['Quarterly report', 'Revenue grew (as expected) by 12% — thanks to everyone.', 'Signed'].map((t) => text.indexOf(t));
    assert.ok(order.every((i) => i >= 0), `all texts present in:\n${text}`);
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'texts in reading order');
  });

  test('long text wraps inside the content width and flows onto new pages', async () => {
    const paragraph = 'The quick brown fox jumps over the lazy dog. '.repeat(400);
    const pdf = await render({ ...textDocument(paragraph), page_size: 'a5' });
    const info = await pdfInfo(pdf);
    assert.ok(Number(info.Pages) > 1, `several pages (${info.Pages})`);
    assert.match(info['Page size'] ?? '', /^419\.5\d* x 595\.2\d* pts/, 'A5 in points');
    const lines = (await pdfToText(pdf, true)).split('\n').filter((line) => line.includes('fox'));
    assert.ok(lines.length > 20, 'wrapped into many lines');
    // A5 is 148 mm wide: at 12 pt Helvetica a line holds ~60-70 characters, never the whole paragraph.
    for (const line of lines) assert.ok(line.trim().length < 90, `line within the width: "${line.trim()}"`);
  });

  test('page size is case-insensitive, orientation and add_page sizes apply', async () => {
    const pdf = await render({
      page_size: 'letter',
      orientation: 'landscape',
      operations: [{ type: 'add_text', text: 'one' }, { type: 'add_page', page_size: 'A4', orientation: 'portrait' }, { type: 'add_text', text: 'two' }],
    });
    assert.equal(Number((await pdfInfo(pdf)).Pages), 2);
    const text = await pdfToText(pdf);
    assert.ok(text.indexOf('one') < text.indexOf('two'));
  });

  test('the spec example discriminator `op` is accepted as an alias of `type`', async () => {
    const pdf = await render({ operations: [{ op: 'add_text', text: 'alias works' }] });
    assert.match(await pdfToText(pdf), /alias works/);
  });

  test('output.compress false writes plain objects', async () => {
    const plain = await render({ ...textDocument('plain'), output: { compress: false } });
    assert.ok(!Buffer.from(plain).includes('/ObjStm'), 'no object streams');
    const packed = await render(textDocument('packed'));
    assert.ok(Buffer.from(packed).includes('/ObjStm'), 'object streams when compressed');
  });

  test('text cannot inject PDF syntax', async () => {
    const hostile = 'a) Tj ET ( \\ )>> endstream endobj %%EOF (b';
    const pdf = await render(textDocument(hostile));
    await qpdfCheck(pdf);
    assert.ok((await pdfToText(pdf)).includes(hostile));
  });

  test('characters no available font can draw give 422 naming them and the field', async () => {
    const response = await postJson(s.base, '/api/v1/render', textDocument('fine', 'Hieroglyphs \u{13000}\u{13001}'));
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.errors?.[0]?.field, 'operations[1].text');
    assert.equal(problem.errors?.[0]?.code, 'UNSUPPORTED_CHARACTERS');
    assert.match(problem.errors?.[0]?.message ?? '', /U\+13000/);
  });

  test('text the standard fonts cannot encode falls back to the bundled Unicode font, with no font set', async () => {
    const sampler = 'Zoë pays €5 — Привет, Γειά';
    const pdf = await render(textDocument(sampler));
    await qpdfCheck(pdf);
    assert.ok((await pdfToText(pdf)).includes(sampler), await pdfToText(pdf));
    const fonts = await pdfFonts(pdf);
    assert.ok(fonts.some((f) => /DejaVuSans/.test(f.name) && f.embedded && f.subset), JSON.stringify(fonts));
  });

  test('422 errors point at the offending field', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ operations: [{ type: 'add_text' }] }, 'operations[0].text', 'REQUIRED'],
      [{ operations: [{ type: 'add_text', text: 'x', size: 0 }] }, 'operations[0].size', 'OUT_OF_RANGE'],
      [{ operations: [{ type: 'add_text', text: 'x', colour: '#fff' }] }, 'operations[0].colour', 'UNKNOWN_FIELD'],
      [{ operations: [{ type: 'add_text', text: 'x', x: 10 }] }, 'operations[0].y', 'INVALID_VALUE'],
      [{ operations: [{ type: 'set_font', family: 'Comic Sans' }] }, 'operations[0].family', 'UNKNOWN_FONT'],
      [{ operations: [{ type: 'set_font', color: 'red' }] }, 'operations[0].color', 'INVALID_FORMAT'],
      [{ operations: [{ type: 'draw_unicorn' }] }, 'operations[0].type', 'INVALID_ENUM'],
      [{ operations: [{ type: 'add_text', text: 'x' }], orientation: 'sideways' }, 'orientation', 'INVALID_ENUM'],
      [[1, 2], '(body)', 'INVALID_TYPE'],
      // An operation that is no object is a wrong type, whatever it is (a string was INVALID_ENUM, [] a missing type).
      ...[5, null, [], 'add_page', true].map((op): [unknown, string, string] => [{ operations: [op] }, 'operations[0]', 'INVALID_TYPE']),
      // A margin object is checked as one: a misspelt side is named (it was "must be a number ..." on margin).
      [{ margin: { Top: 10 }, operations: [{ type: 'add_text', text: 'x' }] }, 'margin.Top', 'UNKNOWN_FIELD'],
      [{ margin: { left: '5' }, operations: [{ type: 'add_text', text: 'x' }] }, 'margin.left', 'INVALID_TYPE'],
      [{ margin: [], operations: [{ type: 'add_text', text: 'x' }] }, 'margin', 'INVALID_TYPE'],
    ];
    for (const [body, field, code] of cases) {
      const response = await postJson(s.base, '/api/v1/render', body);
      assert.equal(response.status, 422, JSON.stringify(body));
      const problem = await readProblem(response);
      assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field, code }, JSON.stringify(body));
    }
  });

  test('a malformed body is reported by position, never echoed back', async () => {
    const response = await postJson(s.base, '/api/v1/render', '{"operations": svc_live_secret_token_here');
    const problem = await readProblem(response);
    assert.equal(problem.status, 400);
    assert.ok(!JSON.stringify(problem).includes('svc_live'), problem.detail);
    assert.match(problem.detail, /not valid JSON/);
  });

  test('an oversized, invalid operations list is refused with a bounded problem document', async () => {
    const items = `[${Array.from({ length: 150_000 }, () => '{}').join(',')}]`;
    const response = await postJson(s.base, '/api/v1/render', `{"operations":${items}}`);
    assert.equal(response.status, 422);
    const text = await response.text();
    assert.ok(text.length < 10_000, `${text.length} bytes`);
    assert.match(text, /at most 100000 operations/);
  });

  test('validation messages never echo the offending value', async () => {
    const secret = 'x'.repeat(5000);
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_text', text: 1 }], page_size: secret });
    const text = await response.text();
    assert.equal(response.status, 422);
    assert.ok(!text.includes('xxxxxxxxxx'), 'the value is not repeated');
  });

  test('impossible geometry is a 422 naming the field, never blank pages or lost text', async () => {
    const cases: Array<[unknown, string]> = [
      [{ margin: 1000, operations: [{ type: 'add_text', text: 'hello' }] }, 'margin'],
      [{ margin: 60, operations: [{ type: 'add_text', text: 'a' }, { type: 'add_page', page_size: 'A10' }] }, 'operations[1].page_size'],
      [{ header: { text: 'x\n'.repeat(20), size: 12 }, operations: [{ type: 'add_text', text: 'body' }] }, 'header.text'],
      [{ operations: [{ type: 'add_text', text: 'off the page', x: 700, y: 10 }] }, 'operations[0].x'],
      [{ operations: [{ type: 'add_text', text: 'a\nb\nc\nd', x: 50, y: 800 }] }, 'operations[0].y'],
      [{ operations: [{ type: 'add_text', text: 'x'.repeat(200_000), x: 590, y: 10 }] }, 'operations[0].y'],
      // Absolute text past the right edge was cut there, a 200 without it.
      [{ operations: [{ type: 'add_text', text: 'a long line of text', x: 500, y: 100, width: 14_400 }] }, 'operations[0].width'],
      [{ operations: [{ type: 'add_text', text: 'abc', x: 595.2, y: 100 }] }, 'operations[0].x'],
      // A line taller than a page's content box: its glyphs were drawn below the page, a 200 without the text.
      [{ operations: [{ type: 'set_font', size: 300, line_height: 5 }, { type: 'add_text', text: 'Q' }] }, 'operations[1]'],
      [{ page_size: 'A7', operations: [{ type: 'add_text', text: 'Q', size: 300 }] }, 'operations[0]'],
      [{ operations: [{ type: 'set_font', size: 300, line_height: 5 }, { type: 'add_html', html: '<p>Q</p>' }] }, 'operations[1].html'],
    ];
    for (const [body, field] of cases) {
      const response = await postJson(s.base, '/api/v1/render', body);
      assert.equal(response.status, 422, JSON.stringify(body).slice(0, 120));
      const problem = await readProblem(response);
      assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field, code: 'OUT_OF_RANGE' }, JSON.stringify(body).slice(0, 120));
    }
    // Absolute text placed in the margin wraps to the page edge, not into a 1-point column.
    const pdf = await render({ operations: [{ type: 'add_text', text: 'in the margin', x: 560, y: 20 }] });
    assert.match(await pdfToText(pdf), /in/);
  });

  test('metadata refuses control characters, bidi controls and unpaired surrogates (window-title spoofing)', async () => {
    for (const title of ['Report \u202Efdp.exe', 'nul\u0000', 'half \uD800']) {
      const response = await postJson(s.base, '/api/v1/render', { metadata: { title }, operations: [{ type: 'add_text', text: 'x' }] });
      assert.equal(response.status, 422, JSON.stringify(title));
      assert.equal((await readProblem(response)).errors?.[0]?.field, 'metadata.title');
    }
  });

  test('an unknown operation type is a 422 listing the available ones', async () => {
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_chart' }] });
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.errors?.[0]?.field, 'operations[0].type');
    assert.match(problem.errors?.[0]?.message ?? '', /add_text/);
  });
});
