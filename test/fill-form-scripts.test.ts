// POST /api/v1/fill-form with right-to-left and mixed-script values, read
// back as a person and a reader would: parse's form_fields gives every value
// back exactly; the flattened page's words (pdftotext -bbox) sit where the
// value's direction and the field's /Q put them, in visual order; pdftotext
// gives Hebrew and Arabic back in logical order; pdffonts shows the subsets,
// with Helvetica (the field's /DA font) kept for the Latin runs of a value
// that also needs a Noto face.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFormFields } from './helpers/form-fields.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfToText, qpdfCheck, wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { CITY_BOX, SCRIPT_FIELDS, scriptFormPdf, TEXT_INSET, type ScriptField } from './helpers/script-form-pdf.js';
import { startTestServer } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
/** pdftotext marks direction runs with U+202A-U+202E; they are not text. Whitespace is normalised. */
const words = (text: string): string => text.replace(/[\u202a-\u202e\f]/g, '').split(/\s+/).filter(Boolean).join(' ');
/** pdftotext -bbox lists a right-to-left word's characters in visual order. */
const visual = (word: string): string => [...word].reverse().join('');

const VALUES: Record<ScriptField | 'city', string> = {
  city: 'תל אביב-יפו',
  hebrew: 'שלום עולם',
  arabic: 'مرحبا بالعالم',
  mixed: 'עם 123 ו-Platen',
  left: 'שלום עולם',
  centred: 'שלום עולם',
  devanagari: 'Name: नमस्ते दुनिया',
  times: 'Times שלום',
  notes: 'שורה ראשונה\nשורה שנייה עם 42',
  code: 'אב12',
};

/** The words of the flattened page inside a field's box (PDF space: bottom-left origin; the page is 792 pt high). */
function inField(boxes: readonly WordBox[], field: ScriptField | 'city'): WordBox[] {
  const box = field === 'city' ? CITY_BOX : SCRIPT_FIELDS[field];
  const top = 792 - box.y - box.height;
  return boxes.filter((w) => w.yMin >= top - 1 && w.yMax <= top + box.height + 1 && w.xMin >= box.x - 1 && w.xMax <= box.x + box.width + 1);
}

test('fill-form: right-to-left and mixed-script values', async (t) => {
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise' });
  t.after(() => server.close());
  const render = await loadContract('render');
  const source = await scriptFormPdf();
  const fill = async (fields: Record<string, unknown>, flatten: boolean): Promise<Uint8Array> => {
    const response = await fetch(`${server.base}/api/v1/fill-form`, { method: 'POST', headers: { ...bearer(KEYS.pro), 'content-type': 'application/json' }, body: JSON.stringify({ pdf: b64(source), fields, flatten }) });
    await assertMatchesContract(render, 'post', '/api/v1/fill-form', response.clone());
    assert.equal(response.status, 200, await response.clone().text());
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };

  await t.test("parse's form_fields reads every value back exactly", async () => {
    const read = await readFormFields(server.base, await fill(VALUES, false));
    for (const [name, value] of Object.entries(VALUES)) assert.deepEqual(read.get(name)?.value, name === 'city' ? [value] : value, name);
  });

  const flat = await fill(VALUES, true);
  const boxes = await wordBoxes(flat);
  const right = (field: ScriptField | 'city') => (field === 'city' ? CITY_BOX : SCRIPT_FIELDS[field]).x + (field === 'city' ? CITY_BOX : SCRIPT_FIELDS[field]).width - TEXT_INSET;
  const left = (field: ScriptField) => SCRIPT_FIELDS[field].x + TEXT_INSET;

  await t.test('right-to-left values are right-aligned without /Q, their first word rightmost; /Q 0 and /Q 1 are honoured', () => {
    // The combo box shows its Hebrew option as a text field would.
    for (const field of ['hebrew', 'arabic', 'notes', 'city'] as const) {
      const inside = inField(boxes, field);
      assert.ok(inside.length > 0, `${field}: ${JSON.stringify(boxes)}`);
      assert.ok(Math.abs(Math.max(...inside.map((w) => w.xMax)) - right(field)) < 1.5, `${field} ends at ${Math.max(...inside.map((w) => w.xMax))}, not ${right(field)}`);
    }
    const hebrew = inField(boxes, 'hebrew');
    const first = hebrew.find((w) => w.word === visual('שלום'));
    const second = hebrew.find((w) => w.word === visual('עולם'));
    assert.ok(first !== undefined && second !== undefined, JSON.stringify(hebrew));
    assert.ok(first.xMin > second.xMax, 'the first word of a right-to-left value is the rightmost');
    const leftAligned = inField(boxes, 'left');
    assert.ok(Math.abs(Math.min(...leftAligned.map((w) => w.xMin)) - left('left')) < 1.5, `/Q 0 starts at ${Math.min(...leftAligned.map((w) => w.xMin))}`);
    const centred = inField(boxes, 'centred');
    const middle = (Math.min(...centred.map((w) => w.xMin)) + Math.max(...centred.map((w) => w.xMax))) / 2;
    assert.ok(Math.abs(middle - (SCRIPT_FIELDS.centred.x + SCRIPT_FIELDS.centred.width / 2)) < 1.5, `/Q 1 centres on ${middle}`);
    // A left-to-right value (Devanagari with Latin) stays at the left.
    assert.ok(Math.abs(Math.min(...inField(boxes, 'devanagari').map((w) => w.xMin)) - left('devanagari')) < 1.5);
  });

  await t.test('a mixed value: the number and the Latin name keep their order, in the visual order of the Unicode Bidirectional Algorithm', () => {
    const mixed = inField(boxes, 'mixed');
    const at = (predicate: (w: WordBox) => boolean, what: string) => {
      const found = mixed.find(predicate);
      assert.ok(found !== undefined, `${what} in ${JSON.stringify(mixed)}`);
      return found;
    };
    const hebrew = at((w) => w.word === visual('עם'), 'עם');
    const number = at((w) => w.word.includes('123'), '123');
    const latin = at((w) => w.word.includes('Platen'), 'Platen');
    // Right to left: עם, then 123, then ו-Platen (its hyphen on the Hebrew letter's left, between it and the name).
    assert.ok(hebrew.xMin > number.xMax && number.xMin > latin.xMax, JSON.stringify(mixed));
    assert.ok(!mixed.some((w) => w.word.includes('321') || w.word.includes('netalP')), 'digits and Latin are not reversed');
    assert.ok(mixed.some((w) => /Platen-/.test(w.word)), `the hyphen sits right of the name: ${JSON.stringify(mixed)}`);
  });

  await t.test('pdftotext gives Hebrew, Arabic and Devanagari with Latin back in logical order', async () => {
    const text = words(await pdfToText(flat));
    for (const value of [VALUES.hebrew, VALUES.arabic, VALUES.devanagari, 'שורה ראשונה']) assert.ok(text.includes(words(value)), `${value} in ${text}`);
    // A mixed line comes back in poppler's order (README "fill-form"); each run whole.
    for (const run of ['עם', '123', 'Platen']) assert.ok(text.includes(run), `${run} in ${text}`);
  });

  await t.test("the comb field: one character a cell, the first at the right, digits in their order", () => {
    const cell = SCRIPT_FIELDS.code.width / 6;
    const glyphs = inField(boxes, 'code');
    const centre = (w: WordBox) => (w.xMin + w.xMax) / 2;
    const alef = glyphs.find((w) => w.word.includes('א'));
    assert.ok(alef !== undefined, JSON.stringify(glyphs));
    // Rightmost cell (the sixth): the value's first character.
    assert.ok(Math.abs(centre(alef) - (SCRIPT_FIELDS.code.x + 5.5 * cell)) < cell / 2, JSON.stringify(glyphs));
    const one = glyphs.find((w) => w.word.startsWith('1'));
    assert.ok(one !== undefined && one.xMin < alef.xMin, JSON.stringify(glyphs));
  });

  await t.test('fonts: DejaVu Sans and Noto Devanagari embedded as subsets; the /DA fonts (Helvetica, Times) kept for the Latin runs', async () => {
    const fonts = await pdfFonts(flat);
    const names = fonts.map((font) => font.name).join(', ');
    for (const face of [/DejaVuSans/, /NotoSansDevanagari/]) {
      const font = fonts.find((f) => face.test(f.name));
      assert.ok(font !== undefined && font.embedded && font.subset, `${face} in ${names}`);
    }
    assert.match(names, /Helvetica/);
    assert.match(names, /Times-Roman/);
  });

  await t.test('a right-to-left value longer than its box keeps its start in view: its first word at the right edge, the overflow at the left', async () => {
    const long = ['ראשון', ...Array.from({ length: 30 }, () => 'מילה'), 'אחרון'].join(' ');
    const page = await wordBoxes(await fill({ hebrew: long }, true));
    const first = page.find((w) => w.word === visual('ראשון'));
    assert.ok(first !== undefined, JSON.stringify(page));
    assert.ok(Math.abs(first.xMax - right('hebrew')) < 1.5, `the first word ends at ${first.xMax}, not at the right edge ${right('hebrew')}`);
    // The end runs out at the left, past the page's edge too, where pdftotext drops words.
    assert.ok(page.some((w) => w.word === visual('מילה') && w.xMin < SCRIPT_FIELDS.hebrew.x), JSON.stringify(page));
    assert.ok(!page.some((w) => w.word === visual('אחרון') && w.xMin >= SCRIPT_FIELDS.hebrew.x), 'the last word is not inside the box');
  });

  await t.test('a character no font has is still refused, naming it', async () => {
    const response = await fetch(`${server.base}/api/v1/fill-form`, {
      method: 'POST',
      headers: { ...bearer(KEYS.pro), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: b64(source), fields: { hebrew: 'שלום \u{13000}' } }),
    });
    assert.equal(response.status, 422);
    const problem = (await response.json()) as Data;
    assert.deepEqual(problem.errors.map((error: Data) => [error.field, error.code]), [['fields.hebrew', 'UNSUPPORTED_CHARACTERS']]);
    assert.match(problem.errors[0].message, /U\+13000/);
  });
});
