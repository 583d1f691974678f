// POST /api/v1/fill-form on list boxes whose options mix right-to-left and
// Latin text or need several fonts, read back as a person and a reader
// would: each option one row from the top index (/TI), the selected rows
// highlighted, right-to-left rows on the right in the visual order of the
// Unicode Bidirectional Algorithm, Chinese with Latin in two fonts;
// pdftotext gives the rows back (in poppler's order, which it picks per
// page: README "fill-form"), pdffonts shows the subsets, parse's
// form_fields reads the values back. pdf-lib's provider drew "שלום world"
// as "dlrow שלום", the Chinese as empty boxes, and ignored /TI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFormFields } from './helpers/form-fields.js';
import { KEYS, bearer } from './helpers/keys.js';
import { EXPORT_VALUES, LIST_BOXES, LIST_OPTIONS, listFormPdf, RTL_BOX, SCROLL_ROWS, SCROLL_TOP_INDEX, type ListBoxName } from './helpers/list-form-pdf.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfToText, qpdfCheck, wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { meanColour } from './helpers/raster.js';
import { startTestServer } from './helpers/server.js';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
/** A page's lines, without pdftotext's direction marks (U+202A-U+202E), whitespace normalised, empty lines dropped. */
const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.replace(/[\u202a-\u202e]/g, '').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
/** pdftotext -bbox lists a right-to-left word's characters in visual order. */
const visual = (word: string): string => [...word].reverse().join('');

const PAGE_HEIGHT = 792;
/** The inset of the rows from a box's edge: border (1 pt) plus padding (1 pt). */
const INSET = 2;

const VALUES = {
  greeting: EXPORT_VALUES[1],
  many: [LIST_OPTIONS[0], LIST_OPTIONS[2]],
  scrolled: SCROLL_ROWS[3],
  auto: LIST_OPTIONS[3],
  rtl: 'שלום world',
};

type Box = { readonly x: number; readonly y: number; readonly width: number; readonly height: number };

/** The words inside a box (PDF space, bottom-left origin) of a page. */
function inBox(boxes: readonly WordBox[], box: Box, page = 1): WordBox[] {
  const top = PAGE_HEIGHT - box.y - box.height;
  return boxes.filter((w) => w.page === page && w.yMin >= top - 1 && w.yMax <= top + box.height + 1 && w.xMin >= box.x - 1 && w.xMax <= box.x + box.width + 1);
}

/** The word of a box that is `word` (pdftotext's visual order for a right-to-left one). */
function find(words: readonly WordBox[], word: string): WordBox {
  const found = words.find((w) => w.word === word || w.word === visual(word));
  assert.ok(found !== undefined, `${word} in ${JSON.stringify(words.map((w) => w.word))}`);
  return found;
}

test('fill-form: list boxes drawn row by row by the render engine', async (t) => {
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise' });
  t.after(() => server.close());
  const render = await loadContract('render');
  const source = await listFormPdf();
  const fill = async (flatten: boolean): Promise<Uint8Array> => {
    const response = await fetch(`${server.base}/api/v1/fill-form`, { method: 'POST', headers: { ...bearer(KEYS.pro), 'content-type': 'application/json' }, body: JSON.stringify({ pdf: b64(source), fields: VALUES, flatten }) });
    await assertMatchesContract(render, 'post', '/api/v1/fill-form', response.clone());
    assert.equal(response.status, 200, await response.clone().text());
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };

  await t.test("parse's form_fields reads the values back: export values, several for the multi-select list", async () => {
    const read = await readFormFields(server.base, await fill(false));
    assert.deepEqual(read.get('greeting')?.value, ['ar']);
    assert.deepEqual(read.get('many')?.value, [...VALUES.many]);
    assert.deepEqual(read.get('scrolled')?.value, [VALUES.scrolled]);
    assert.deepEqual(read.get('auto')?.value, [VALUES.auto]);
    assert.deepEqual(read.get('rtl')?.value, [VALUES.rtl]);
  });

  const flat = await fill(true);
  const boxes = await wordBoxes(flat);
  const [page1 = '', page2 = ''] = (await pdfToText(flat)).split('\f');

  await t.test('pdftotext gives every row back, each run whole and in its order, in the order poppler picks for the page', () => {
    // Page 1 has more Latin letters than right-to-left ones: poppler reads it left to right, so a row that mixes them comes back in display order.
    const first = lines(page1);
    for (const row of ['world שלום', '123 مرحبا', '中文 Chinese', 'Plain Latin', 'Row two', 'Row three', 'Row four']) assert.ok(first.includes(row), `${row} in ${JSON.stringify(first)}`);
    // Page 2's right-to-left letters outnumber its Latin ones: poppler reads it right to left, and gives the rows back in logical order.
    const second = lines(page2);
    for (const row of ['שלום world', 'مرحبا 123', 'עברית ועוד']) assert.ok(second.includes(row), `${row} in ${JSON.stringify(second)}`);
    // pdf-lib's provider reversed each option whole.
    assert.ok(!/dlrow|321/.test(page1 + page2), 'no run reversed');
  });

  await t.test('rows in /Opt order from the top, a right-to-left row at the right, a Latin row at the left (no /Q)', () => {
    const box = LIST_BOXES.greeting;
    const words = inBox(boxes, box);
    const hebrew = find(words, 'שלום');
    const world = find(words, 'world');
    const arabic = find(words, 'مرحبا');
    const number = find(words, '123');
    const chinese = find(words, '中文');
    const plain = find(words, 'Plain');
    const right = box.x + box.width - INSET;
    for (const [name, word] of [['שלום', hebrew], ['مرحبا', arabic]] as const) assert.ok(Math.abs(word.xMax - right) < 1.5, `${name} ends at ${word.xMax}, not ${right}`);
    // Visual order of a right-to-left row: its first word rightmost, the Latin word and the number on its left.
    assert.ok(world.xMax < hebrew.xMin && number.xMax < arabic.xMin, JSON.stringify(words));
    for (const word of [chinese, plain]) assert.ok(Math.abs(word.xMin - (box.x + INSET)) < 1.5, `${word.word} starts at ${word.xMin}`);
    const rowsTopDown = [hebrew, arabic, chinese, plain].map((w) => w.yMin);
    assert.deepEqual([...rowsTopDown].sort((a, b) => a - b), rowsTopDown, 'rows in /Opt order');
    // Each row on its own line of the box, the first at its top.
    assert.ok(hebrew.yMin - (PAGE_HEIGHT - box.y - box.height) < 5, `first row at ${hebrew.yMin}`);
  });

  await t.test('the selected rows are highlighted (light blue, 153 193 218), the others not', async () => {
    const check = async (name: ListBoxName, rows: readonly (readonly [string, boolean])[]) => {
      const box = LIST_BOXES[name];
      const words = inBox(boxes, box);
      for (const [word, selected] of rows) {
        const at = find(words, word);
        // A strip in the middle of the box, where no row has text, at the row's height.
        const middle = (at.yMin + at.yMax) / 2;
        const colour = await meanColour(flat, { x: box.x + 140, y: PAGE_HEIGHT - middle - 2, width: 20, height: 4 });
        const expected = selected ? { r: 153, g: 193, b: 218 } : { r: 255, g: 255, b: 255 };
        for (const c of ['r', 'g', 'b'] as const) assert.ok(Math.abs(colour[c] - expected[c]) <= 3, `${name} ${word}: ${JSON.stringify(colour)}, not ${JSON.stringify(expected)}`);
      }
    };
    await check('greeting', [['שלום', false], ['مرحبا', true], ['中文', false], ['Plain', false]]);
    await check('many', [['שלום', true], ['مرحبا', false], ['中文', true], ['Plain', false]]);
  });

  await t.test('/TI: the list starts at its top index; rows below the box are not drawn', () => {
    const box = LIST_BOXES.scrolled;
    const top = PAGE_HEIGHT - box.y - box.height;
    // Words that start in the box: the last row runs out of it (clipped when drawn, not when extracted).
    const words = boxes.filter((w) => w.page === 1 && w.xMin >= box.x && w.xMax <= box.x + box.width && w.yMin >= top && w.yMin < top + box.height);
    const shown = SCROLL_ROWS.filter((row) => words.some((w) => w.word === row.split(' ')[1]));
    // 32 pt inside, rows of 14.4 pt: two whole rows and the top of a third, which the box clips.
    assert.deepEqual(shown, SCROLL_ROWS.slice(SCROLL_TOP_INDEX, SCROLL_TOP_INDEX + 3));
    const first = words.find((w) => w.word === 'two');
    assert.ok(first !== undefined && first.yMin - top < 5, `Row two at the top: ${JSON.stringify(words)}`);
    assert.ok(!lines(page1).some((line) => line === 'Row zero' || line === 'Row one' || line === 'Row five'), page1);
  });

  await t.test('automatic size (/DA 0 Tf): every option fits the box, larger than 12 pt', () => {
    const box = LIST_BOXES.auto;
    const words = inBox(boxes, box);
    for (const word of ['שלום', 'world', 'مرحبا', '123', '中文', 'Chinese', 'Plain', 'Latin']) find(words, word);
    const plain = find(words, 'Plain');
    assert.ok(plain.yMax - plain.yMin > 12, `row text ${plain.yMax - plain.yMin} pt high`);
  });

  await t.test('page 2: right-to-left rows at the right', () => {
    const words = inBox(boxes, RTL_BOX, 2);
    const right = RTL_BOX.x + RTL_BOX.width - INSET;
    for (const word of ['שלום', 'مرحبا', 'עברית']) assert.ok(Math.abs(find(words, word).xMax - right) < 1.5, `${word}: ${JSON.stringify(words)}`);
  });

  await t.test('fonts: DejaVu Sans (Hebrew, Arabic) and a Noto CJK face (Chinese) embedded as subsets, Helvetica (the /DA font) for the Latin runs', async () => {
    const fonts = await pdfFonts(flat);
    const names = fonts.map((font) => font.name).join(', ');
    for (const face of [/DejaVuSans/, /NotoSans.*(SC|CJK|JP|TC|KR)/]) {
      const font = fonts.find((f) => face.test(f.name));
      assert.ok(font !== undefined && font.embedded && font.subset, `${face} in ${names}`);
    }
    assert.match(names, /Helvetica/);
  });
});
