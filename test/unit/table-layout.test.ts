// drawTable as HTML tables call it: ragged rows, mixed-style spans, a given
// width, and a header too tall to repeat. Driven without a server; the pages
// are saved and read back with pdftotext.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDocument } from '../../workers/seams/pdf.js';
import { BLACK } from '../../workers/render/canvas.js';
import type { RenderContext } from '../../workers/render/context.js';
import { DEFAULT_STYLE } from '../../workers/render/engine.js';
import { Flow } from '../../workers/render/flow.js';
import { FontBook } from '../../workers/render/fonts.js';
import { Headings } from '../../workers/render/headings.js';
import type { Span } from '../../workers/render/inline.js';
import { drawTable, type TableBox, type TableCell, type TableInput } from '../../workers/render/table-layout.js';
import { pdfToText } from '../helpers/pdf-tools.js';

const A4: readonly [number, number] = [595.28, 841.89];

async function renderTable(table: Partial<TableInput>, box?: TableBox): Promise<{ pages: string[]; layout: string; textX: number[]; links: number }> {
  const doc = await createDocument({ compress: false });
  const flow = new Flow(A4, { top: 50, right: 50, bottom: 50, left: 50 }, 100);
  const context: RenderContext = { doc, flow, fonts: new FontBook(doc), headings: new Headings(), style: DEFAULT_STYLE, pageSize: () => A4 };
  const input: TableInput = { columns: [], header: [], rows: [], padding: 4, borderWidth: 0.5, borderColor: BLACK, ...table };
  await drawTable(context, input, 'operations[0].html', box);
  const contents = flow.pages.map((page) => page.content());
  for (const content of contents) doc.addPage(content);
  const pdf = await doc.save();
  // x of every text placement, in drawing order: Td moves are relative to the
  // previous line start within a text object (BT resets it to 0).
  const textX: number[] = [];
  let lineX = 0;
  for (const op of contents.map((c) => c.operators).join('\n').matchAll(/\bBT\b|(-?[\d.]+) -?[\d.]+ Td/g)) {
    if (op[0] === 'BT') lineX = 0;
    else textX.push(Math.round((lineX += Number(op[1])) * 100) / 100);
  }
  const links = contents.reduce((sum, c) => sum + c.links.length, 0);
  return { pages: (await pdfToText(pdf)).split('\f').filter((page) => page.trim() !== ''), layout: await pdfToText(pdf, true), textX, links };
}

const cell = (text: string, colspan = 1): TableCell => ({ spans: [{ text, style: DEFAULT_STYLE }], colspan, align: 'left' });

describe('drawTable', () => {
  test('ragged rows: short rows are completed, spans clamped, cells past the last column dropped', async () => {
    const { layout } = await renderTable({
      columns: [{ kind: 'auto' }, { kind: 'auto' }],
      rows: [[cell('a1'), cell('a2'), cell('a3-dropped')], [cell('b1')], [cell('c-wide', 5)]],
    });
    assert.match(layout, /a1\s+a2/);
    assert.ok(!layout.includes('a3-dropped'), layout);
    assert.ok(layout.includes('b1') && layout.includes('c-wide'), layout);
  });

  test('without columns, the widest row decides the count', async () => {
    const { layout } = await renderTable({ rows: [[cell('x', 2)], [cell('p'), cell('q'), cell('r')]] });
    assert.match(layout, /p\s+q\s+r/);
  });

  test('a cell of several styled spans keeps them in order on one line', async () => {
    const bold = { ...DEFAULT_STYLE, bold: true };
    const spans: Span[] = [
      { text: 'plain ', style: DEFAULT_STYLE },
      { text: 'bold', style: bold },
      { text: ' tail', style: DEFAULT_STYLE },
    ];
    const { layout } = await renderTable({ rows: [[{ spans, colspan: 1, align: 'left' }]] });
    assert.match(layout, /plain bold tail/);
  });

  test('links and justified text in cells', async () => {
    const link = { ...DEFAULT_STYLE, link: 'https://example.com/' };
    const words = 'many words that wrap in a narrow justified column '.repeat(3);
    const { layout, links } = await renderTable({
      columns: [{ kind: 'fixed', points: 150 }, { kind: 'auto' }],
      rows: [[{ spans: [{ text: words, style: DEFAULT_STYLE }], colspan: 1, align: 'justify' }, { spans: [{ text: 'see ', style: DEFAULT_STYLE }, { text: 'example', style: link }], colspan: 1, align: 'left' }]],
    });
    assert.equal(links, 1, 'one link area, over the linked word');
    assert.match(layout, /see example/);
    assert.ok(layout.includes('narrow'), layout);
  });

  test('a given width narrows the table; fractions share it', async () => {
    const halves = { columns: [{ kind: 'fraction', weight: 1 }, { kind: 'fraction', weight: 1 }] as const, rows: [[cell('left'), cell('right')]] };
    // Grid lines start at 50.25 (half the border); text sits 4.25 inside (padding and half a border).
    assert.deepEqual((await renderTable(halves, { width: 120 })).textX, [54.5, 50.25 + 59.75 + 4.25]);
    assert.deepEqual((await renderTable(halves)).textX, [54.5, Math.round((50.25 + (495.28 - 0.5) / 2 + 4.25) * 100) / 100]);
  });

  test('a box moves the table into the content box (an HTML table in a list item)', async () => {
    const halves = { columns: [{ kind: 'fraction', weight: 1 }, { kind: 'fraction', weight: 1 }] as const, rows: [[cell('left'), cell('right')]] };
    assert.deepEqual((await renderTable(halves, { left: 30, width: 120 })).textX, [84.5, 80.25 + 59.75 + 4.25]);
    // Without a width it takes what is left of the content box.
    assert.deepEqual((await renderTable(halves, { left: 95.28 })).textX, [149.78, Math.round((145.53 + (400 - 0.5) / 2 + 4.25) * 100) / 100]);
  });

  test('a header taller than half a page is drawn once, not on every page', async () => {
    const tallHeader = [[cell(Array.from({ length: 35 }, (_, i) => `h${i}`).join('\n'))]];
    const rows = Array.from({ length: 60 }, (_, i) => [cell(`row${i}`)]);
    const { pages } = await renderTable({ header: tallHeader, rows });
    assert.ok(pages.length >= 2);
    assert.equal(pages.filter((page) => page.includes('h0')).length, 1);
    assert.ok(pages.at(-1)?.includes('row59'));
  });

  test('an empty table draws nothing', async () => {
    const { pages } = await renderTable({ rows: [[]] });
    assert.equal(pages.length, 0);
  });
});
