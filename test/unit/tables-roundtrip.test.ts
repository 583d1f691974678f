// Round trip: tables our render engine draws (add_table, the golden
// invoice's shape) read back by the reader and the table finder, cell for
// cell, on every page the table runs over.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openReader } from '../../workers/read/reader.js';
import { pageTables } from '../../workers/read/tables/page-tables.js';
import type { Table } from '../../workers/read/tables/types.js';
import { render } from '../../workers/render/task.js';

async function renderPdf(body: unknown): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const outcome = await render({ body: bytes.buffer as ArrayBuffer, length: bytes.length, options: {} });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return new Uint8Array(outcome.value.body);
}

async function tablesOf(pdf: Uint8Array): Promise<Table[][]> {
  const document = await openReader(pdf, undefined, { data: 'pdf_data', password: 'password' });
  const pages: Table[][] = [];
  try {
    for (let n = 1; n <= document.pageCount; n++) {
      const page = await document.page(n);
      pages.push(pageTables(await page.text({ styles: false }), await page.operators()));
      page.close();
    }
  } finally {
    await document.close();
  }
  return pages;
}

function rowsOf(table: Table): string[][] {
  const rows = Array.from({ length: table.rows }, () => Array<string>(table.columns).fill(''));
  for (const cell of table.cells) (rows[cell.row] as string[])[cell.column] = cell.text;
  return rows;
}

describe('tables drawn by the render engine, read back', () => {
  test('the golden invoice: header and every line, in four columns, on every page', async () => {
    const lines = Array.from({ length: 160 }, (_, i) => [`ITEM-${1000 + i}`, `Bearing ${6200 + i}, sealed`, String(1 + (i % 9)), `€ ${(10 + i).toFixed(2)}`]);
    const header = ['Item', 'Description', 'Qty', 'Amount'];
    const pdf = await renderPdf({
      footer: { text: 'Invoice 2025-0314 · page {page} of {pages}', align: 'right', size: 8 },
      operations: [
        { type: 'set_font', bold: true, size: 16 },
        { type: 'add_text', text: 'Invoice 2025-0314' },
        { type: 'set_font', bold: false, size: 10 },
        { type: 'add_table', columns: [80, '1fr', 40, 80], align: ['left', 'left', 'right', 'right'], header, rows: lines, zebra: '#f3f4f6' },
        { type: 'add_text', text: 'Total due within 30 days.', bold: true },
      ],
    });
    const pages = await tablesOf(pdf);
    assert.ok(pages.length >= 4, `${pages.length} pages`);
    const seen: string[][] = [];
    pages.forEach((tables, index) => {
      assert.equal(tables.length, 1, `one table on page ${index + 1}`);
      const table = tables[0] as Table;
      assert.equal(table.method, 'lattice');
      assert.equal(table.columns, 4);
      const rows = rowsOf(table);
      assert.deepEqual(rows[0], header, `the header row repeats on page ${index + 1}`);
      seen.push(...rows.slice(1));
      assert.ok(table.cells.every((c) => c.row_span === 1 && c.column_span === 1));
    });
    assert.deepEqual(seen, lines);
  });

  test('a small table with a short row: empty cells stay empty, positions are the drawn grid', async () => {
    const pdf = await renderPdf({
      operations: [{ type: 'add_table', columns: [100, 100, 100], header: ['Cause', 'Share', 'Trend'], rows: [['Contamination', '36%', 'up'], ['Lubrication', '34%']] }],
    });
    const [tables] = await tablesOf(pdf);
    assert.equal(tables?.length, 1);
    const table = tables?.[0] as Table;
    assert.deepEqual(rowsOf(table), [
      ['Cause', 'Share', 'Trend'],
      ['Contamination', '36%', 'up'],
      ['Lubrication', '34%', ''],
    ]);
    assert.ok(Math.abs(table.width - 300) < 2, `width ${table.width}`);
  });
});
