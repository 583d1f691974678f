// POST /v1/parse end to end: documents rendered by the server (an invoice
// with a ruled table, an image), built with pdf-lib (form fields, an
// outline), through the real pipeline, each answer checked against the
// accelerator contract and the facts against what was put in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDict, PDFDocument, PDFName, PDFNumber, StandardFonts } from '@cantoo/pdf-lib';
import { sourcePdf } from './helpers/docops-fixtures.js';
import { signedPdf } from './helpers/signed-pdf.js';
import { bandsImage } from './helpers/images.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { renderPdf } from './helpers/http.js';
import { pdfToText } from './helpers/pdf-tools.js';
import { rawPdf, withBrokenStartxref, withGarbageInXrefTable, withShiftedXrefOffsets } from './helpers/raw-pdf.js';
import { LETTER } from '../bench/documents.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const PATH = '/v1/parse';

let s: TestServer;
let accel: Contract;

async function call(body: unknown, key: string = KEYS.pro): Promise<{ status: number; body: Node }> {
  const response = await fetch(`${s.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
  return { status: response.status, body: (await assertMatchesContract(accel, 'post', PATH, response)) as Node };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any;

async function parsed(pdf: Uint8Array, options?: Record<string, unknown>): Promise<Data> {
  const answer = await call({ pdf_data: Buffer.from(pdf).toString('base64'), ...(options === undefined ? {} : { options }) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 600));
  return answer.body.data;
}

describe('POST /v1/parse', () => {
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
  });
  after(() => s.close());

  test('an invoice: metadata, text blocks in reading order where add_text put them, the ruled table with its cells', async () => {
    const rows = [
      ['ITEM-1001', 'Bearing 6201, sealed', '2', '€ 10.00'],
      ['ITEM-1002', 'Bearing 6202, sealed', '3', '€ 11.00'],
      ['ITEM-1003', 'Bearing 6203, open', '1', '€ 12.00'],
    ];
    const pdf = await renderPdf(s.base, {
      metadata: { title: 'Invoice 2025-0314', author: 'Northwind Bearings', subject: 'Bearings', keywords: ['invoice', 'bearings'] },
      operations: [
        { type: 'set_font', bold: true, size: 16 },
        { type: 'add_text', text: 'Invoice 2025-0314', x: 56, y: 60 },
        { type: 'set_font', bold: false, size: 10 },
        { type: 'add_text', text: 'Due within 30 days of delivery.', x: 56, y: 90 },
        { type: 'add_text', text: '\n\n\n\n\n' },
        { type: 'add_table', columns: [80, '1fr', 40, 80], header: ['Item', 'Description', 'Qty', 'Amount'], rows, border: { width: 0.5, color: '#000000' } },
      ],
    });
    const data = await parsed(pdf);
    assert.equal(data.page_count, 1);
    assert.equal(data.notice, null);
    assert.deepEqual(
      [data.metadata.title, data.metadata.author, data.metadata.subject, data.metadata.keywords, data.metadata.is_linearized, data.metadata.has_signatures],
      ['Invoice 2025-0314', 'Northwind Bearings', 'Bearings', 'invoice bearings', false, false],
    );
    assert.match(data.metadata.pdf_version, /^\d\.\d$/);
    assert.equal('bookmarks' in data, false);
    const [page] = data.pages;
    assert.equal('images' in page, false);
    const heading = page.text_blocks[0];
    assert.equal(heading.text, 'Invoice 2025-0314');
    assert.ok(Math.abs(heading.x - 56) < 1 && Math.abs(heading.y - 60) < 1, JSON.stringify(heading));
    assert.deepEqual([heading.font, heading.font_size, heading.reading_order], ['Helvetica-Bold', 16, 0]);
    assert.equal(page.text_blocks[1].text, 'Due within 30 days of delivery.');
    assert.equal(page.tables.length, 1, JSON.stringify(page.tables));
    const table = page.tables[0];
    assert.deepEqual([table.rows, table.columns], [4, 4]);
    const cell = (row: number, column: number) => table.cells.find((c: Data) => c.row === row && c.column === column)?.text;
    assert.deepEqual([0, 1, 2, 3].map((c) => cell(0, c)), ['Item', 'Description', 'Qty', 'Amount']);
    for (const [r, row] of rows.entries()) assert.deepEqual([0, 1, 2, 3].map((c) => cell(r + 1, c)), row);
  });

  test('round trips: the bench letter and the Unicode sampler read back with exactly the text pdftotext finds', async () => {
    const sampler = ['Zoë pays €5 — naïve café, Ærøskøbing, Łódź', 'Γειά σου κόσμε — Ελληνικά', 'Привет, мир — «кавычки»', 'Maths: ∑ ∞ ≤ ≥ ± × ÷ √ π'];
    const flat = (text: string) => text.normalize('NFKC').replace(/\s+/g, ' ').trim();
    for (const body of [LETTER, { operations: sampler.map((text) => ({ type: 'add_text', text })) }]) {
      const pdf = await renderPdf(s.base, body);
      const data = await parsed(pdf, { extract_tables: false, extract_forms: false });
      const ours = data.pages.map((page: Data) => page.text_blocks.map((block: Data) => block.text).join('\n')).join('\n');
      assert.equal(flat(ours), flat(await pdfToText(pdf)));
    }
  });

  test('form fields: fully qualified names, types, values, options, flags and boxes', async () => {
    const base = await sourcePdf({ label: 'Form', pages: 2, textFields: { 'applicant.name': 'Ada Lovelace' }, checkBox: 'consent' });
    const doc = await PDFDocument.load(base);
    const form = doc.getForm();
    const choice = form.createDropdown('country');
    choice.addOptions(['Belgium', 'Netherlands', 'Norway']);
    choice.select('Norway');
    choice.enableRequired();
    choice.addToPage(doc.getPage(1), { x: 100, y: 500, width: 150, height: 20, font: await doc.embedFont(StandardFonts.Helvetica) });
    form.getTextField('applicant.name').enableReadOnly();
    // The fixture checks the box before adding its widget, leaving /V /Yes with /AS /Off; checking again sets both.
    form.getCheckBox('consent').check();
    const pdf = await doc.save();
    const data = await parsed(pdf, { extract_text: false, extract_tables: false });
    const [first, second] = data.pages;
    assert.deepEqual(first.text_blocks, []);
    const byName = new Map(first.form_fields.map((f: Data) => [f.name, f]));
    const name: Data = byName.get('applicant.name');
    assert.deepEqual([name.type, name.value, name.read_only, name.required, name.page], ['text', 'Ada Lovelace', true, false, 1]);
    // pdf-lib put it at x 50, 200 x 24 pt, its bottom 160 pt under the top edge in PDF space (y = 632): its top is
    // 792 - 656 = 136 pt from the top. pdf-lib widens the widget's /Rect by half its 1 pt border on each side.
    for (const [got, want] of [[name.x, 50], [name.y, 136], [name.width, 200], [name.height, 24]] as const) assert.ok(Math.abs(got - want) <= 1, JSON.stringify(name));
    const consent: Data = byName.get('consent');
    assert.deepEqual([consent.type, consent.value], ['checkbox', true]);
    assert.equal(second.form_fields.length, 1);
    const country = second.form_fields[0];
    assert.deepEqual([country.name, country.type, country.value, country.options, country.required, country.page], ['country', 'choice', ['Norway'], ['Belgium', 'Netherlands', 'Norway'], true, 2]);
    const none = await parsed(pdf, { extract_forms: false });
    assert.deepEqual(none.pages[0].form_fields, []);
  });

  test('bookmarks when asked: the outline tree with 1-based pages', async () => {
    const pdf = await sourcePdf({
      label: 'Book',
      pages: 3,
      outline: [
        { title: 'Part one', page: 0, children: [{ title: 'Chapter 1.1', page: 1 }] },
        { title: 'Part two', page: 2 },
      ],
    });
    const data = await parsed(pdf, { extract_bookmarks: true, page_range: [3, 3] });
    assert.deepEqual(data.bookmarks, [
      { title: 'Part one', page: 1, children: [{ title: 'Chapter 1.1', page: 2, children: [] }] },
      { title: 'Part two', page: 3, children: [] },
    ]);
    assert.deepEqual(data.pages.map((p: Data) => p.page_number), [3]);
    assert.equal(data.pages[0].text_blocks[0].text, 'Book page 3');
  });

  test('images when asked: placement, pixel size, colour space, bits and filter, no pixel data', async () => {
    const png = await bandsImage(40, [30, [200, 30, 30]], [30, [30, 30, 200]]).png().toBuffer();
    const pdf = await renderPdf(s.base, { operations: [{ type: 'add_image', data: png.toString('base64'), x: 100, y: 150, width: 120, height: 80 }] });
    const data = await parsed(pdf, { extract_images: true });
    assert.deepEqual(data.pages[0].images, [
      { x: 100, y: 150, width: 120, height: 80, pixel_width: 60, pixel_height: 40, color_space: 'DeviceRGB', bits_per_component: 8, filter: 'FlateDecode' },
    ]);
  });

  test('has_signatures counts what every route counts: a field signature and a usage-rights signature (/Perms /UR3), not an empty signature field', async () => {
    // Before, this was pdf.js's IsSignaturesPresent (the AcroForm's SigFlags), which a usage-rights signature does not set: false, where linearize counted 1.
    assert.equal((await parsed(await signedPdf(2))).metadata.has_signatures, true);
    assert.equal((await parsed(await signedPdf(2, { usageRights: true }))).metadata.has_signatures, true);
    const emptyField = await PDFDocument.create();
    emptyField.addPage();
    emptyField.getForm().createTextField('name').addToPage(emptyField.getPage(0));
    emptyField.catalog.lookup(PDFName.of('AcroForm'), PDFDict).set(PDFName.of('SigFlags'), PDFNumber.of(3));
    assert.equal((await parsed(await emptyField.save())).metadata.has_signatures, false, 'SigFlags alone is no signature');
  });

  test('damaged cross-reference data (garbage in the table, entries off their objects, startxref nowhere): read, with a notice', async () => {
    const sound = rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (Rebuilt page) Tj ET' }]);
    assert.equal((await parsed(sound)).notice, null);
    for (const [name, damaged] of [['garbage', withGarbageInXrefTable(sound)], ['shifted', withShiftedXrefOffsets(sound)], ['startxref', withBrokenStartxref(sound)]] as const) {
      const data = await parsed(damaged);
      assert.match(String(data.notice), /cross-reference data is damaged .* read by rebuilding/, name);
      assert.match(data.pages[0].text_blocks.map((b: Data) => b.text).join(' '), /Rebuilt page/, name);
    }
  });

  test('422 with errors[]: page_range out of order, encrypted without password; core keys 403', async () => {
    const pdf = Buffer.from(await sourcePdf({ label: 'X', pages: 2 })).toString('base64');
    const range = await call({ pdf_data: pdf, options: { page_range: [2, 1] } });
    assert.equal(range.status, 422);
    assert.deepEqual((range.body.errors as Data[]).map((e) => e.field), ['options.page_range']);
    // A third item is refused, not dropped ([1, 5, 10] may mean three pages).
    const three = await call({ pdf_data: pdf, options: { page_range: [1, 2, 2] } });
    assert.equal(three.status, 422);
    assert.deepEqual((three.body.errors as Data[]).map((e) => [e.field, e.code]), [['options.page_range', 'TOO_LONG']]);
    const locked = Buffer.from(await sourcePdf({ label: 'Y', pages: 1, password: 'pw' })).toString('base64');
    const needs = await call({ pdf_data: locked });
    assert.equal(needs.status, 422);
    assert.match(String(needs.body.type), /\/pdf-password-required$/);
    assert.match(String(needs.body.detail), /send it in password\./);
    assert.equal((await call({ pdf_data: locked, password: 'pw' })).status, 200);
    const denied = await call({ pdf_data: pdf }, KEYS.core);
    assert.equal(denied.status, 403);
  });
});
