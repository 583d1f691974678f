// add_table end to end: pagination with repeated headers, column widths,
// colspan, row splitting and validation, checked on the PDF with qpdf and
// poppler (word positions from `pdftotext -bbox`, in points from the top-left).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postJson, readProblem, renderPdf } from './helpers/http.js';
import { pdfInfo, pdfToText } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);

interface Word {
  readonly page: number;
  readonly text: string;
  readonly xMin: number;
  readonly xMax: number;
  readonly yMin: number;
  readonly yMax: number;
}

/** Every word with its box, from `pdftotext -bbox`. */
async function words(pdf: Uint8Array): Promise<Word[]> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-table-'));
  try {
    const path = join(dir, 'out.pdf');
    await writeFile(path, pdf);
    const { stdout } = await run('pdftotext', ['-bbox', path, '-'], { maxBuffer: 64 * 1024 * 1024 });
    const found: Word[] = [];
    let page = 0;
    for (const line of stdout.split('\n')) {
      if (line.includes('<page ')) page++;
      const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
      if (match === null) continue;
      const [, xMin, yMin, xMax, yMax, text] = match as unknown as [string, string, string, string, string, string];
      const decoded = text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
      found.push({ page, text: decoded, xMin: Number(xMin), xMax: Number(xMax), yMin: Number(yMin), yMax: Number(yMax) });
    }
    return found;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function word(all: readonly Word[], text: string): Word {
  const found = all.find((w) => w.text === text);
  assert.ok(found !== undefined, `word "${text}" not found among ${all.length} words`);
  return found;
}

const A4_HEIGHT = 841.89;
const MARGIN = 50;

describe('add_table', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const render = (body: unknown): Promise<Uint8Array> => renderPdf(s.base, body);

  async function problem(body: unknown): Promise<Array<{ field: string; code: string; message: string }>> {
    const response = await postJson(s.base, '/api/v1/render', body);
    assert.equal(response.status, 422, JSON.stringify(body).slice(0, 300));
    return (await readProblem(response)).errors ?? [];
  }

  test('a long table flows over pages with the header on every page and the rows in order', async () => {
    const rows = Array.from({ length: 150 }, (_, i) => [`R${i}`, `Widget ${i}`, String(i % 9), `${(i * 2.5).toFixed(2)}`]);
    const pdf = await render({
      operations: [
        { type: 'add_text', text: 'Before the table' },
        { type: 'add_table', header: ['Code', 'Article', 'Qty', 'Amount'], rows, zebra: '#f3f4f6', header_fill: '#e5e7eb' },
        { type: 'add_text', text: 'After the table' },
      ],
    });
    const pages = (await pdfToText(pdf)).split('\f').filter((page) => page.trim() !== '');
    assert.ok(pages.length >= 3, `several pages (${pages.length})`);
    assert.equal(Number((await pdfInfo(pdf)).Pages), pages.length);
    for (const [index, page] of pages.entries()) {
      for (const heading of ['Code', 'Article', 'Qty', 'Amount']) assert.ok(page.includes(heading), `page ${index + 1} repeats the header`);
      // The header comes before the page's first row.
      const firstRow = /R\d+/.exec(page);
      assert.ok(firstRow !== null && page.indexOf('Code') < firstRow.index, `header first on page ${index + 1}`);
    }
    const text = pages.join('\n');
    const positions = rows.map((row) => text.search(new RegExp(`\\b${row[0]}\\b`)));
    assert.ok(positions.every((p) => p >= 0), 'every row present');
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'rows in order');
    assert.ok(text.indexOf('Before the table') < text.indexOf('Code') && text.lastIndexOf('After the table') > text.lastIndexOf('R149'));
    // Nothing runs into the bottom margin.
    for (const w of await words(pdf)) assert.ok(w.yMax <= A4_HEIGHT - MARGIN + 0.5, `"${w.text}" on page ${w.page} ends at ${w.yMax}`);
  });

  test('cells read left to right, top to bottom', async () => {
    const pdf = await render({
      operations: [{ type: 'add_table', rows: [['alpha', 'beta', 'gamma'], ['delta', 'epsilon', 'zeta']] }],
    });
    const text = await pdfToText(pdf);
    const order = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'].map((t) => text.indexOf(t));
    assert.ok(order.every((i) => i >= 0), text);
    assert.deepEqual([...order].sort((a, b) => a - b), order);
  });

  test('fixed widths in points and fractions of the rest place the columns', async () => {
    // Border 0.5, padding 4: a column's text starts at its grid line + 4.25; the first grid line is at 50.25.
    const fixed = await words(await render({ operations: [{ type: 'add_table', columns: [100, 150, 'auto'], rows: [['one', 'two', 'three']] }] }));
    assert.ok(Math.abs(word(fixed, 'one').xMin - 54.5) < 0.2, `first column at ${word(fixed, 'one').xMin}`);
    assert.ok(Math.abs(word(fixed, 'two').xMin - 154.5) < 0.2, `second column at ${word(fixed, 'two').xMin}`);
    assert.ok(Math.abs(word(fixed, 'three').xMin - 304.5) < 0.2, `third column at ${word(fixed, 'three').xMin}`);

    // No border or padding: 1fr + 3fr split the 495.28 pt content width of A4 a quarter / three quarters.
    const fractions = await words(
      await render({ operations: [{ type: 'add_table', columns: ['1fr', '3fr'], padding: 0, border: { width: 0 }, rows: [['left', 'right']] }] }),
    );
    assert.ok(Math.abs(word(fractions, 'right').xMin - (50 + 495.28 / 4)) < 0.2, `second column at ${word(fractions, 'right').xMin}`);

    // A fixed column beside fractions: the fractions share what the fixed one leaves.
    const mixed = await words(
      await render({ operations: [{ type: 'add_table', columns: [95.28, '1fr', '1fr'], padding: 0, border: { width: 0 }, rows: [['a', 'b', 'c']] }] }),
    );
    assert.ok(Math.abs(word(mixed, 'b').xMin - 145.28) < 0.2 && Math.abs(word(mixed, 'c').xMin - 345.28) < 0.2, JSON.stringify(mixed));
  });

  test('auto columns size from their content and never break a word that fits', async () => {
    const paragraph = 'This description is long enough that it has to wrap over several lines of the second column. '.repeat(4);
    const all = await words(
      await render({
        operations: [{ type: 'add_table', rows: [['id', paragraph], ['Supercalifragilisticexpialidocious', 'short']] }],
      }),
    );
    const long = word(all, 'Supercalifragilisticexpialidocious');
    const second = word(all, 'This');
    // The first column is as wide as its longest word (plus padding), no wider: the paragraph takes the rest.
    assert.ok(second.xMin > long.xMax && second.xMin - long.xMax < 12, `second column starts at ${second.xMin}, the long word ends at ${long.xMax}`);
    const lines = new Set(all.filter((w) => w.text === 'description').map((w) => w.yMin));
    assert.ok(lines.size >= 2, 'the paragraph wraps');
    assert.ok(all.every((w) => w.xMax <= 595.28 - MARGIN + 0.5), 'nothing past the right margin');
  });

  test('colspan: a cell spans its columns, its text centred across them', async () => {
    const all = await words(
      await render({
        operations: [
          {
            type: 'add_table',
            columns: [100, 100, 100, 100],
            rows: [
              ['a', 'b', 'c', 'd'],
              [{ text: 'Spanned', colspan: 3, align: 'center' }, 'e'],
            ],
          },
        ],
      }),
    );
    const spanned = word(all, 'Spanned');
    const centre = (spanned.xMin + spanned.xMax) / 2;
    // Columns 1-3 run from 50.25 to 350.25: their centre is 200.25.
    assert.ok(Math.abs(centre - 200.25) < 1, `centred at ${centre}`);
    assert.ok(Math.abs(word(all, 'e').xMin - word(all, 'd').xMin) < 0.2, 'the cell after the span is in the fourth column');
  });

  test('alignment per column and per cell', async () => {
    const all = await words(
      await render({
        operations: [{ type: 'add_table', columns: [200, 200], align: ['left', 'right'], rows: [['L', 'R'], [{ text: 'C', align: 'center' }, 'R2']] }],
      }),
    );
    // The second column's right edge is 450.25; text ends at it minus 4.25.
    assert.ok(Math.abs(word(all, 'R').xMax - 446) < 0.3, `right-aligned ends at ${word(all, 'R').xMax}`);
    assert.ok(Math.abs((word(all, 'C').xMin + word(all, 'C').xMax) / 2 - 150.25) < 0.5, 'centred cell');
  });

  test('a row taller than a page is split across pages, its lines continuing in order', async () => {
    const tall = Array.from({ length: 160 }, (_, i) => `line${i}`).join('\n');
    const pdf = await render({
      operations: [
        {
          type: 'add_table',
          header: ['Key', 'Value'],
          rows: [
            ['first', 'small'],
            ['tall', tall],
            ['last', 'small'],
          ],
        },
      ],
    });
    const all = await words(pdf);
    const pages = Math.max(...all.map((w) => w.page));
    assert.ok(pages >= 3, `the row spans pages (${pages})`);
    const lines = all.filter((w) => /^line\d+$/.test(w.text));
    assert.deepEqual(
      lines.map((w) => w.text),
      Array.from({ length: 160 }, (_, i) => `line${i}`),
      'each line once, in order',
    );
    for (let page = 1; page <= pages; page++) {
      assert.ok(all.some((w) => w.page === page && w.text === 'Key'), `header on page ${page}`);
    }
    for (const w of all) assert.ok(w.yMax <= A4_HEIGHT - MARGIN + 0.5, `"${w.text}" on page ${w.page} ends at ${w.yMax}`);
    assert.equal(all.filter((w) => w.text === 'last').length, 1);
  });

  test('a row that fits on a page but not below the cursor moves to the next page whole', async () => {
    // Rows of one 12 pt line are 23.4 pt with padding and border: 25 of them leave ~157 pt, less than the 297 pt block.
    const small = Array.from({ length: 25 }, (_, i) => [`s${i}`, 'x']);
    const block = Array.from({ length: 20 }, (_, i) => `b${i}`).join('\n');
    const all = await words(await render({ operations: [{ type: 'add_table', rows: [...small, ['block', block]] }] }));
    assert.equal(word(all, 's24').page, 1);
    const pagesOfBlock = new Set(all.filter((w) => /^b\d+$/.test(w.text)).map((w) => w.page));
    assert.deepEqual([...pagesOfBlock], [2]);
  });

  test('fills and borders: zebra on every second body row, header fill, no strokes at border width 0', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => [`r${i}`]);
    const plain = (pdf: Uint8Array) => Buffer.from(pdf).toString('latin1');
    const filled = plain(await render({ output: { compress: false }, operations: [{ type: 'add_table', header: ['H'], header_fill: '#ff0000', zebra: '#cccccc', rows }] }));
    assert.equal(filled.match(/0\.8 0\.8 0\.8 rg\s+[\d. ]+ re f/g)?.length, 3, 'three zebra rows of six');
    assert.equal(filled.match(/1 0 0 rg\s+[\d. ]+ re f/g)?.length, 1, 'one header fill');
    assert.match(filled, / l S/);
    const bare = plain(await render({ output: { compress: false }, operations: [{ type: 'add_table', border: { width: 0 }, rows }] }));
    assert.doesNotMatch(bare, / l S/);
  });

  test('Unicode in cells falls back to the bundled font; bold and colour per cell', async () => {
    const sampler = 'Zoë pays €5 — Привет, Γειά';
    const text = await pdfToText(await render({ operations: [{ type: 'add_table', header: [{ text: 'Grüße', bold: false }], rows: [[{ text: sampler, color: '#c00', bold: true }]] }] }));
    assert.ok(text.includes(sampler) && text.includes('Grüße'), text);
  });

  test('a header given as several rows repeats them all', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => [`v${i}`, 'x']);
    const pages = (await pdfToText(await render({ operations: [{ type: 'add_table', header: [['Top', 'Title'], ['Sub', 'Title2']], rows }] }))).split('\f');
    for (const page of pages.filter((p) => p.trim() !== '')) assert.ok(page.includes('Top') && page.includes('Title2'), page.slice(0, 100));
  });

  test('invalid tables are 422 with the offending field', async () => {
    const table = (fields: Record<string, unknown>) => ({ operations: [{ type: 'add_text', text: 'x' }, { type: 'add_table', rows: [['a']], ...fields }] });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ columns: ['1fr', '1fr'], rows: [['a'], [{ text: 'b', colspan: 3 }]] }, 'operations[1].rows[1][0].colspan', 'INVALID_VALUE'],
      [{ columns: [100], rows: [['a', 'b']] }, 'operations[1].rows[0][1]', 'INVALID_VALUE'],
      [{ columns: [100], header: [['h'], ['h', 'i']] }, 'operations[1].header[1][1]', 'INVALID_VALUE'],
      [{ rows: [['a'], 'not a row'] }, 'operations[1].rows[1]', 'INVALID_TYPE'],
      [{ rows: [['a', 5]] }, 'operations[1].rows[0][1]', 'INVALID_TYPE'],
      [{ rows: [[{ text: 'a', colour: '#fff' }]] }, 'operations[1].rows[0][0].colour', 'UNKNOWN_FIELD'],
      [{ rows: [[{ text: 'a', colspan: 0 }]] }, 'operations[1].rows[0][0].colspan', 'OUT_OF_RANGE'],
      [{ columns: [-5] }, 'operations[1].columns[0]', 'OUT_OF_RANGE'],
      [{ columns: ['wide'] }, 'operations[1].columns[0]', 'INVALID_FORMAT'],
      [{ columns: ['0fr'] }, 'operations[1].columns[0]', 'INVALID_VALUE'],
      [{ header: ['a', ['b']] }, 'operations[1].header', 'INVALID_VALUE'],
      [{ align: ['left', 'right'] }, 'operations[1].align', 'INVALID_VALUE'],
      [{ align: ['middle'] }, 'operations[1].align[0]', 'INVALID_ENUM'],
      [{ header: Array.from({ length: 11 }, () => ['h']) }, 'operations[1].header', 'INVALID_VALUE'],
      [{ padding: -1 }, 'operations[1].padding', 'OUT_OF_RANGE'],
      [{ border: { width: 1, style: 'dashed' } }, 'operations[1].border.style', 'UNKNOWN_FIELD'],
      [{ zebra: 'grey' }, 'operations[1].zebra', 'INVALID_FORMAT'],
      [{ rows: undefined }, 'operations[1].rows', 'REQUIRED'],
    ];
    for (const [fields, field, code] of cases) {
      const errors = await problem(table(fields));
      assert.deepEqual({ field: errors[0]?.field, code: errors[0]?.code }, { field, code }, JSON.stringify(fields));
    }
  });

  test('without columns, colspans cannot take a table past 100 columns', async () => {
    // Every row is completed to the column count: 100 cells of colspan 100 made 10,000 columns, and 1,000 short rows ran the worker out of memory.
    const wide = Array.from({ length: 100 }, () => ({ text: 'x', colspan: 100 }));
    const errors = await problem({ operations: [{ type: 'add_table', rows: [wide, ...Array.from({ length: 1000 }, () => ['y'])] }] });
    assert.deepEqual({ field: errors[0]?.field, code: errors[0]?.code }, { field: 'operations[0].rows[0][1]', code: 'INVALID_VALUE' });
    assert.match(errors[0]?.message ?? '', /at most 100 columns/);
    const header = await problem({ operations: [{ type: 'add_table', header: ['h', { text: 'wide', colspan: 100 }], rows: [['a']] }] });
    assert.deepEqual({ field: header[0]?.field, code: header[0]?.code }, { field: 'operations[0].header[1].colspan', code: 'INVALID_VALUE' });
    // 100 columns exactly are a table.
    const text = await pdfToText(await render({ operations: [{ type: 'add_table', rows: [[{ text: 'spanning', colspan: 100 }], ['y']] }] }));
    assert.ok(text.includes('spanning'), text);
  });

  test('a table of more than 2,000,000 characters of text is 422 TOO_LARGE on the table', async () => {
    const cell = 'abcd '.repeat(2000);
    const errors = await problem({ operations: [{ type: 'add_text', text: 'x' }, { type: 'add_table', rows: Array.from({ length: 201 }, () => [cell]) }] });
    assert.deepEqual({ field: errors[0]?.field, code: errors[0]?.code }, { field: 'operations[1]', code: 'TOO_LARGE' });
    assert.match(errors[0]?.message ?? '', /2000000 characters/);
  });

  test('rows are laid out one at a time: 1,000 pages of long cells fit a 128 MB worker', async (t) => {
    // 150 distinct cells of 2,000 words in 50 pt columns, about 2,000 lines each: laid out all at once they took more than 256 MB of heap.
    const small = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_WORKER_MEMORY_MB: '128' });
    t.after(() => small.close());
    const rows = Array.from({ length: 30 }, (_, r) => Array.from({ length: 5 }, (_, c) => Array.from({ length: 2000 }, (_, i) => `${(r * 5 + c).toString(36)}${i % 10}`).join(' ')));
    const response = await postJson(small.base, '/api/v1/render', { operations: [{ type: 'add_table', columns: [50, 50, 50, 50, 50], rows }] });
    assert.equal(response.status, 200, await response.clone().text());
    const pdf = new Uint8Array(await response.arrayBuffer());
    const pages = Number((await pdfInfo(pdf)).Pages);
    assert.ok(pages > 1000, `${pages} pages`);
    const dir = await mkdtemp(join(tmpdir(), 'platen-table-'));
    try {
      await writeFile(join(dir, 'out.pdf'), pdf);
      const page = async (n: number) => new Set((await run('pdftotext', ['-f', String(n), '-l', String(n), join(dir, 'out.pdf'), '-'])).stdout.split(/\s+/));
      const [first, last] = [await page(1), await page(pages)];
      for (let c = 0; c < 5; c++) {
        assert.ok(first.has(`${c.toString(36)}0`), `the first row's cell ${c} starts on page 1`);
        assert.ok(last.has(`${(145 + c).toString(36)}9`), `the last row's cell ${c} ends on the last page`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('padding and border taller than a page are 422 on padding, a line taller than a page on its cell; a row ends with its last line', async () => {
    // Each page used to draw one more empty band of the one-cell table, until the 2,000-page budget ran out.
    const errors = await problem({ page_size: 'A10', margin: 30, operations: [{ type: 'add_table', padding: 100, rows: [['a']] }] });
    assert.deepEqual({ field: errors[0]?.field, code: errors[0]?.code }, { field: 'operations[0].padding', code: 'OUT_OF_RANGE' });
    // A line taller than the page's content box was drawn with its glyphs below the page.
    const tall = await problem({ operations: [{ type: 'set_font', size: 300, line_height: 5 }, { type: 'add_table', rows: [['fits'], ['a']] }] });
    assert.deepEqual({ field: tall[0]?.field, code: tall[0]?.code }, { field: 'operations[1].rows[0][0]', code: 'OUT_OF_RANGE' });
    assert.match(tall[0]?.message ?? '', /^a line of this text is 1500 pt tall/);
    // Its own size on a small page too (such lines were once drawn one per page, off its bottom).
    const small = await problem({ page_size: 'A7', operations: [{ type: 'add_table', size: 300, rows: [['A B']] }] });
    assert.deepEqual({ field: small[0]?.field, code: small[0]?.code }, { field: 'operations[0].rows[0][0]', code: 'OUT_OF_RANGE' });
    // A line as tall as a page allows is drawn on one page, with no blank page after it.
    const pdf = await render({ operations: [{ type: 'set_font', size: 140, line_height: 5 }, { type: 'add_table', rows: [['a']] }] });
    assert.equal(Number((await pdfInfo(pdf)).Pages), 1);
    assert.match(await pdfToText(pdf), /a/);
  });

  test('a character no font has names the cell', async () => {
    const errors = await problem({ operations: [{ type: 'add_table', header: ['ok'], rows: [['fine'], ['fine', { text: 'Hieroglyphs \u{13000}\u{13001}' }]] }] });
    assert.equal(errors[0]?.field, 'operations[0].rows[1][1].text');
    assert.equal(errors[0]?.code, 'UNSUPPORTED_CHARACTERS');
  });
});
