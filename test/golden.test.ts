// Realistic documents end to end: a letter, a multi-page invoice with a long
// table, an HTML article, a Unicode sampler. Each is checked with qpdf and
// poppler for page count, text order and positions, and fonts. (While
// developing, look at them with `pdftoppm -png`; the PNGs stay out of git.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, readProblem, renderPdf } from './helpers/http.js';
import { pdfFonts, pdfInfo, pdfToText, wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const A4_WIDTH = 595.28;

describe('golden documents', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const render = (body: unknown): Promise<Uint8Array> => renderPdf(s.base, body);

  const find = (words: readonly WordBox[], word: string): WordBox => {
    const box = words.find((w) => w.word === word);
    assert.ok(box, `"${word}" is on the page`);
    return box;
  };

  test('a business letter: one page, letterhead, address left, date right-aligned, justified body, metadata', async () => {
    const body = 'We confirm the dispatch of your order. The bearings leave our warehouse on Friday and the carrier will call ahead. '.repeat(4);
    const pdf = await render({
      margin: { top: 60, right: 56, bottom: 60, left: 56 },
      metadata: { title: 'Order NWB-2025-0314', author: 'Northwind Bearings', language: 'en-GB' },
      operations: [
        { type: 'set_font', family: 'Helvetica', bold: true, size: 18 },
        // Absolute text leaves the cursor alone: the letterhead's spacing makes room for the address block.
        { type: 'add_text', text: 'Northwind Bearings', spacing_after: 110 },
        { type: 'set_font', family: 'Times', bold: false, size: 11 },
        { type: 'add_text', text: 'Ms. Annelies de Vries\nHavenstraat 112\n3011 AB Rotterdam', x: 56, y: 120 },
        { type: 'add_text', text: 'Leeds, 21 March 2025', x: 56, y: 120, width: A4_WIDTH - 112, align: 'right' },
        { type: 'add_text', text: `Dear Ms. de Vries,\n\n${body}`, align: 'justify' },
        { type: 'add_text', text: 'Yours sincerely,\nJames Whitfield' },
      ],
    });
    const info = await pdfInfo(pdf);
    assert.equal(info.Pages, '1');
    assert.equal(info.Title, 'Order NWB-2025-0314');
    assert.equal(info.Author, 'Northwind Bearings');
    const words = await wordBoxes(pdf);
    const head = find(words, 'Northwind');
    assert.ok(Math.abs(head.xMin - 56) < 1 && head.yMin < 90, 'letterhead at the top-left margin');
    const date = find(words, '2025');
    assert.ok(Math.abs(date.xMax - (A4_WIDTH - 56)) < 1.5, `date right-aligned to the margin (${date.xMax})`);
    const street = find(words, 'Havenstraat');
    assert.ok(Math.abs(street.xMin - 56) < 1 && street.yMin > head.yMin, 'address under the letterhead, at the margin');
    // Justified: lines of the body (not its last) end at the right margin.
    const rightEdges = new Map<number, number>();
    for (const w of words.filter((w) => w.yMin > street.yMin + 30)) rightEdges.set(Math.round(w.yMin), Math.max(rightEdges.get(Math.round(w.yMin)) ?? 0, w.xMax));
    const flushLines = [...rightEdges.values()].filter((x) => Math.abs(x - (A4_WIDTH - 56)) < 1.5);
    assert.ok(flushLines.length >= 3, `justified lines reach the right margin (${[...rightEdges.values()].join(', ')})`);
    const text = await pdfToText(pdf);
    assert.ok(text.indexOf('Northwind') < text.indexOf('Dear') && text.indexOf('Dear') < text.indexOf('Yours sincerely'), 'reading order');
  });

  test('a multi-page invoice: the header row and the footer "page N of M" on every page, every line once, in order', async () => {
    const rows = Array.from({ length: 160 }, (_, i) => [`ITEM-${1000 + i}`, `Bearing ${6200 + i}, sealed`, String(1 + (i % 9)), `€ ${(10 + i).toFixed(2)}`]);
    const pdf = await render({
      footer: { text: 'Invoice 2025-0314 · page {page} of {pages}', align: 'right', size: 8 },
      operations: [
        { type: 'set_font', bold: true, size: 16 },
        { type: 'add_text', text: 'Invoice 2025-0314' },
        { type: 'set_font', bold: false, size: 10 },
        { type: 'add_table', columns: [80, '1fr', 40, 80], align: ['left', 'left', 'right', 'right'], header: ['Item', 'Description', 'Qty', 'Amount'], rows, zebra: '#f3f4f6' },
        { type: 'add_text', text: 'Total due within 30 days.', bold: true },
      ],
    });
    const pages = Number((await pdfInfo(pdf)).Pages);
    assert.ok(pages >= 4, `${pages} pages`);
    const text = await pdfToText(pdf);
    const perPage = text.split('\f').filter((page) => page.trim() !== '');
    assert.equal(perPage.length, pages);
    perPage.forEach((page, index) => {
      assert.ok(page.includes('Description'), `header row on page ${index + 1}`);
      assert.ok(page.includes(`page ${index + 1} of ${pages}`), `footer on page ${index + 1}`);
    });
    const positions = rows.map(([item]) => text.indexOf(item as string));
    assert.ok(positions.every((p) => p >= 0), 'every line is there');
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'in order');
    assert.equal(text.split('ITEM-1042').length, 2, 'no line repeated');
    assert.ok(text.lastIndexOf('Total due') > text.lastIndexOf('ITEM-1159'));
    // Amounts are right-aligned: their right edges agree within a point.
    const amounts = (await wordBoxes(pdf)).filter((w) => w.word.includes('.') && /^\d+\.\d\d$/.test(w.word));
    const edges = amounts.map((w) => w.xMax);
    assert.ok(Math.max(...edges) - Math.min(...edges) < 1, 'amount column right-aligned');
  });

  test('an HTML article: headings, paragraphs, a nested list and a table in reading order, links annotated', async () => {
    const pdf = await render({
      output: { compress: false },
      operations: [
        {
          type: 'add_html',
          html:
            '<h1>Keeping conveyors running</h1><p>Most bearings never reach their <strong>rated life</strong>; see <a href="https://example.com/guide">the guide</a>.</p>' +
            '<ul><li>Contamination<ul><li>dust</li><li>water</li></ul></li><li>Lubrication</li></ul>' +
            '<table><thead><tr><th>Cause</th><th>Share</th></tr></thead><tbody><tr><td>Contamination</td><td>36%</td></tr><tr><td>Lubrication</td><td>34%</td></tr></tbody></table>' +
            '<p>Questions: <a href="mailto:service@example.com">write to us</a>.</p>',
        },
      ],
    });
    const text = (await pdfToText(pdf)).replace(/\s+/g, ' ');
    const order = ['Keeping conveyors running', 'rated life', 'Contamination', 'dust', 'water', 'Lubrication', 'Cause', 'Share', '36%', '34%', 'write to us'];
    const positions = order.map((t) => text.indexOf(t));
    assert.ok(positions.every((p) => p >= 0), text);
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'reading order');
    const words = await wordBoxes(pdf);
    assert.ok(find(words, 'Keeping').yMax - find(words, 'Keeping').yMin > find(words, 'bearings').yMax - find(words, 'bearings').yMin, 'the heading is larger');
    assert.ok(find(words, 'dust').xMin > find(words, 'Lubrication').xMin, 'the nested item is indented');
    const raw = Buffer.from(pdf).toString('latin1');
    assert.equal(raw.match(/\/Subtype \/Link/g)?.length, 2, 'two link annotations');
  });

  test('a Unicode sampler: Latin, Greek, Cyrillic and symbols extract exactly, in an embedded subset font', async () => {
    const lines = ['Zoë pays €5 — naïve café, Ærøskøbing, Łódź', 'Γειά σου κόσμε — Ελληνικά', 'Привет, мир — «кавычки»', 'Maths: ∑ ∞ ≤ ≥ ± × ÷ √ π'];
    const pdf = await render({ operations: lines.map((text) => ({ type: 'add_text', text })) });
    const text = await pdfToText(pdf);
    for (const line of lines) assert.ok(text.includes(line), `"${line}" in:\n${text}`);
    const fonts = await pdfFonts(pdf);
    assert.ok(fonts.some((f) => /^[A-Z]{6}\+DejaVuSans/.test(f.name) && f.embedded && f.subset), JSON.stringify(fonts));
    assert.ok(fonts.filter((f) => !f.embedded).every((f) => /^(Helvetica|Times|Courier|Symbol|ZapfDingbats)/.test(f.name)), 'only the standard 14 are not embedded');
  });

  test('hostile strings stay literal: text, metadata and link targets cannot inject PDF syntax', async () => {
    const hostile = 'a) Tj ET BT /F1 99 Tf (pwned) Tj ET ( \\ )>> endobj %%EOF RTL';
    const pdf = await render({
      output: { compress: false },
      metadata: { title: hostile, subject: 'x)>>/OpenAction<</S/JavaScript/JS(app.alert(1))>>' },
      operations: [{ type: 'add_text', text: hostile, link: 'https://example.com/a)(b>><</S/JavaScript' }],
    });
    assert.ok((await pdfToText(pdf)).includes(hostile.slice(0, 40)));
    const info = await pdfInfo(pdf);
    assert.equal(info.Title, hostile);
    assert.ok(!Buffer.from(pdf).toString('latin1').includes('/JavaScript'), 'no JavaScript action anywhere');
    assert.ok(!/\/OpenAction/.test(Buffer.from(pdf).toString('latin1')));
  });

  test('control characters and unpaired surrogates are refused by name, never drawn as boxes', async () => {
    for (const [text, named] of [
      ['bell\u0007', 'U+0007'],
      ['nul\u0000', 'U+0000'],
      ['half \uD800 pair', 'U+D800'],
    ] as const) {
      const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_text', text }] });
      assert.equal(response.status, 422);
      const problem = await readProblem(response);
      assert.equal(problem.errors?.[0]?.code, 'UNSUPPORTED_CHARACTERS');
      assert.match(problem.errors?.[0]?.message ?? '', new RegExp(`${named.replace('+', '\\+')}.*control characters`));
    }
  });
});
