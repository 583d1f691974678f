// The PDF reader (workers/read/) on PDFs from the render engine, written by
// hand, and changed by qpdf: text, positions in the render API's convention,
// styles, rotation, passwords, damage, forms and outlines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openReader } from '../../workers/read/reader.js';
import { TaskFailure } from '../../workers/task/json-task.js';
import type { TextItem } from '../../workers/read/types.js';
import { render } from '../../workers/render/task.js';
import { qpdfTransform, wordBoxes } from '../helpers/pdf-tools.js';
import { rawPdf, withBrokenStartxref } from '../helpers/raw-pdf.js';

const FIELDS = { data: 'pdf_data', password: 'password' };

async function renderPdf(body: unknown): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const outcome = await render({ body: bytes.buffer as ArrayBuffer, length: bytes.length, options: {} });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return new Uint8Array(outcome.value.body);
}

async function itemsOf(pdf: Uint8Array, page = 1, styles = true, password?: string): Promise<readonly TextItem[]> {
  const document = await openReader(pdf.slice(), password, FIELDS);
  try {
    const reader = await document.page(page);
    const items = await reader.text({ styles });
    reader.close();
    return items;
  } finally {
    await document.close();
  }
}

async function failureOf(pdf: Uint8Array, password?: string): Promise<TaskFailure> {
  try {
    const document = await openReader(pdf, password, FIELDS);
    await document.close();
  } catch (error) {
    assert.ok(error instanceof TaskFailure, String(error));
    return error;
  }
  assert.fail('the PDF opened');
}

describe('PDF reader', () => {
  test('text placed by add_text reads back at its place, with its font, size and colour', async () => {
    const pdf = await renderPdf({
      page_size: 'A4',
      operations: [
        { type: 'set_font', family: 'Helvetica', size: 12, color: '#cc0000' },
        { type: 'add_text', text: 'Hello World', x: 72, y: 100 },
        { type: 'set_font', family: 'Times', bold: true, size: 14, color: '#0000ff' },
        { type: 'add_text', text: 'Second line', x: 200, y: 300 },
      ],
    });
    const items = await itemsOf(pdf);
    const hello = items.find((i) => i.text === 'Hello World');
    assert.ok(hello, JSON.stringify(items));
    assert.ok(Math.abs(hello.x - 72) < 1 && Math.abs(hello.y - 100) < 1, `at (${hello.x}, ${hello.y})`);
    assert.deepEqual([hello.font, hello.fontSize, hello.color, hello.bold, hello.rotation, hello.invisible], ['Helvetica', 12, '#cc0000', false, 0, false]);
    const second = items.find((i) => i.text === 'Second line');
    assert.ok(second);
    assert.ok(Math.abs(second.x - 200) < 1 && Math.abs(second.y - 300) < 1, `at (${second.x}, ${second.y})`);
    assert.deepEqual([second.font, second.fontSize, second.color, second.bold], ['Times-Bold', 14, '#0000ff', true]);
    // Against poppler: the same words start at the same x, and our box holds poppler's baseline band.
    const words = await wordBoxes(pdf);
    const popplerHello = words.find((w) => w.word === 'Hello');
    assert.ok(popplerHello && Math.abs(popplerHello.xMin - hello.x) < 0.5 && popplerHello.yMax <= hello.y + hello.height + 0.5);
  });

  test('without styles: the same text and positions, no operator list, fallback font family', async () => {
    const pdf = rawPdf([{ content: 'BT /F1 10 Tf 1 0 0 1 50 700 Tm (Plain) Tj ET' }]);
    const [item] = await itemsOf(pdf, 1, false);
    assert.ok(item);
    assert.equal(item.text, 'Plain');
    assert.equal(item.x, 50);
    assert.ok(Math.abs(item.baseline - 92) < 0.01);
    assert.equal(item.color, '#000000');
  });

  test('colours set in gray and CMYK come back as RGB; q/Q restores; render mode 3 is invisible', async () => {
    const pdf = rawPdf([
      {
        content: [
          'BT /F1 12 Tf 0.5 g 1 0 0 1 50 700 Tm (Gray) Tj ET',
          'q 0 1 1 0 k BT /F1 12 Tf 1 0 0 1 50 680 Tm (Red) Tj ET Q',
          'BT /F1 12 Tf 1 0 0 1 50 660 Tm (Restored) Tj ET',
          'BT /F2 12 Tf 3 Tr 1 0 0 1 50 640 Tm (Hidden) Tj 0 Tr (Shown) Tj ET',
        ].join('\n'),
      },
    ]);
    const items = await itemsOf(pdf);
    const byText = new Map(items.map((i) => [i.text, i]));
    assert.equal(byText.get('Gray')?.color, '#808080');
    // pdf.js converts CMYK with its approximation of a print profile (0 1 1 0 k is #ff2e17, not a naive #ff0000).
    const red = byText.get('Red')?.color ?? '';
    assert.match(red, /^#f[0-9a-f]([0-3][0-9a-f]){2}$/, red);
    assert.equal(byText.get('Restored')?.color, '#808080');
    const hidden = items.find((i) => i.text.startsWith('Hidden'));
    assert.ok(hidden, JSON.stringify(items.map((i) => i.text)));
    assert.equal(hidden.invisible, true);
    assert.equal(hidden.font, 'Times-Roman');
    const shown = items.find((i) => i.text.includes('Shown'));
    assert.ok(shown && (shown === hidden || shown.invisible === false));
  });

  test('a /Rotate 90 page is read as displayed: sizes swap and positions match poppler', async () => {
    const upright = rawPdf([{ content: 'BT /F1 12 Tf 1 0 0 1 72 700 Tm (Turned) Tj ET' }]);
    const pdf = await qpdfTransform(upright, ['--rotate=+90']);
    const document = await openReader(pdf.slice(), undefined, FIELDS);
    const page = await document.page(1);
    assert.deepEqual(page.size, { width: 792, height: 612 });
    const [item] = await page.text({ styles: true });
    page.close();
    await document.close();
    assert.ok(item);
    assert.equal(item.rotation, 90);
    const [word] = await wordBoxes(pdf);
    assert.ok(word);
    // Rotated 90 degrees clockwise, the run goes down the page: its start is at poppler's box's top-right
    // (poppler takes Helvetica's ascent from its AFM, 0.718 em; pdf.js from the substitute font, 0.905 em).
    assert.ok(Math.abs(item.x - word.xMax) < 2.5 && Math.abs(item.y - word.yMin) < 1, `ours (${item.x}, ${item.y}), poppler ${JSON.stringify(word)}`);
  });

  test('encrypted: no password and a wrong one are pdf-password-required; the right one opens it', async () => {
    const plain = rawPdf([{ content: 'BT /F1 12 Tf 1 0 0 1 72 700 Tm (Secret) Tj ET' }]);
    const locked = await qpdfTransform(plain, ['--encrypt', 'user-pw', 'owner-pw', '256', '--']);
    const missing = await failureOf(locked.slice());
    assert.equal(missing.code, 'pdf-password-required');
    assert.deepEqual(missing.errors.map((e) => [e.field, e.code]), [['password', 'REQUIRED']]);
    const wrong = await failureOf(locked.slice(), 'guess');
    assert.equal(wrong.code, 'pdf-password-required');
    assert.deepEqual(wrong.errors.map((e) => [e.field, e.code]), [['password', 'INCORRECT']]);
    assert.deepEqual((await itemsOf(locked, 1, true, 'user-pw')).map((i) => i.text), ['Secret']);
    assert.deepEqual((await itemsOf(locked, 1, true, 'owner-pw')).map((i) => i.text), ['Secret']);
  });

  test('not a PDF, and a PDF beyond repair, are invalid-pdf-data with errors[]', async () => {
    const notPdf = await failureOf(new TextEncoder().encode('hello, this is text'));
    assert.equal(notPdf.code, 'invalid-pdf-data');
    assert.deepEqual(notPdf.errors.map((e) => e.field), ['pdf_data']);
    const garbage = await failureOf(new TextEncoder().encode('%PDF-1.7\n' + 'garbage '.repeat(50)));
    assert.equal(garbage.code, 'invalid-pdf-data');
    assert.equal(garbage.errors.length, 1);
  });

  test('a damaged cross-reference is rebuilt: the text is read and a notice says so', async () => {
    const pdf = withBrokenStartxref(rawPdf([{ content: 'BT /F1 12 Tf 1 0 0 1 72 700 Tm (Mended) Tj ET' }]));
    const document = await openReader(pdf, undefined, FIELDS);
    assert.match(document.notice ?? '', /rebuilding/);
    const page = await document.page(1);
    assert.deepEqual((await page.text({ styles: true })).map((i) => i.text), ['Mended']);
    await document.close();
    const healthy = await openReader(rawPdf([{ content: '' }]), undefined, FIELDS);
    assert.equal(healthy.notice, null);
    await healthy.close();
  });

  test('document info from the render metadata', async () => {
    const pdf = await renderPdf({ metadata: { title: 'Quarterly report', author: 'Ada' }, operations: [{ type: 'add_text', text: 'x' }] });
    const document = await openReader(pdf, undefined, FIELDS);
    const info = await document.info();
    await document.close();
    assert.equal(info.title, 'Quarterly report');
    assert.equal(info.author, 'Ada');
    assert.match(info.pdfVersion ?? '', /^\d\.\d$/);
    assert.ok(info.createdAt === null || !Number.isNaN(Date.parse(info.createdAt)));
  });
});
