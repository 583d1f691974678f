// The reverse bidi pass of the reader (workers/read/layout/logical-order.ts)
// on lines given as pdf.js gives them: runs in display order, each run's
// characters in logical order. The end-to-end cases (rendered by a real
// server) are test/extract-text-bidi.test.ts; these are the choices a
// rendered page rarely shows: which end, side or majority sets the direction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayText, keepsTo, lineDirection, logicalLine } from '../../workers/read/layout/logical-order.js';

const run = (text: string, spaceBefore = true) => ({ text: displayText(text), spaceBefore });

test('a run goes back to display order the way pdf.js read it: right-to-left runs reversed, numbers kept', () => {
  assert.equal(displayText('שלום'), 'םולש');
  assert.equal(displayText('John'), 'John');
  assert.equal(displayText('הזמנה 1042'), '1042 הנמזה');
  // pdf.js reads a run of more than 4 characters with under 30 % right-to-left ones as left to right.
  assert.equal(displayText('Platen ו'), 'Platen ו');
});

test("the line's direction: the end a first letter sits at, else the side it keeps to, else the majority", () => {
  assert.equal(lineDirection('1042 הנמזה', null), 'rtl');
  assert.equal(lineDirection('Hello םולש world', null), 'ltr');
  // Both ends fit: "Platen-ו 123 םע" is "עם 123 ו-Platen" from the right, or itself from the left.
  assert.equal(lineDirection('Platen-ו 123 םע', 'rtl'), 'rtl');
  assert.equal(lineDirection('Platen-ו 123 םע', 'ltr'), 'ltr');
  assert.equal(lineDirection('Platen-ו 123 םע', null), 'ltr');
  assert.equal(lineDirection('ab גדהוזח', null), 'rtl');
  assert.equal(keepsTo(50, 200, 595), 'ltr');
  assert.equal(keepsTo(400, 545, 595), 'rtl');
  assert.equal(keepsTo(50, 545, 595), null);
  assert.equal(keepsTo(50, 200, undefined), null);
});

test('runs in display order become the text as written, with the order of the runs', () => {
  // "مرحبا John، الطلب 1042 جاهز" as pdf.js gave its runs, left to right.
  const arabic = [run('جاهز', false), run('1042'), run('، الطلب'), run('John', false), run('مرحبا')];
  assert.deepEqual(logicalLine(arabic, null), { text: 'مرحبا John، الطلب 1042 جاهز', order: [4, 3, 2, 1, 0] });
  const ltr = [run('The', false), run('word'), run('שלום'), run('means'), run('peace.')];
  assert.deepEqual(logicalLine(ltr, null), { text: 'The word שלום means peace.', order: [0, 1, 2, 3, 4] });
});
