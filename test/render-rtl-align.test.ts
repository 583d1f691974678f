// Right-to-left text in table cells and HTML takes its start side by
// default, as add_text's paragraphs do (issue 15): a Hebrew cell of
// add_table, an HTML <p dir="rtl">, an <html dir="rtl"> document, a Hebrew
// paragraph with no dir at all (its first strong character decides), and an
// HTML table cell sit at the right; an explicit align (add_table's column or
// cell align, CSS text-align, the align attribute) still wins, and
// text-align start/end follow the paragraph's direction. Checked where
// poppler finds the words (pdftotext -bbox).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renderPdf } from './helpers/http.js';
import { wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** A4 with 50 pt margins: the content runs from x 50 to 545. */
const LEFT = 50;
const RIGHT = 545;
/** pdftotext -bbox lists a right-to-left word's characters in visual order. */
const visual = (word: string): string => [...word].reverse().join('');

const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1.5, `${what}: ${actual}, expected ${expected}`);

function word(boxes: readonly WordBox[], text: string): WordBox {
  const found = boxes.find((w) => w.word === text || w.word === visual(text));
  assert.ok(found !== undefined, `${text} in ${boxes.map((w) => w.word).join(' ')}`);
  return found;
}

describe('right-to-left text in tables and HTML is aligned to its start side by default', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());
  const boxesOf = async (operations: unknown[]) => wordBoxes(await renderPdf(s.base, { margin: LEFT, operations }));

  test('add_table: a Hebrew cell sits at its right, a Latin one at its left; column and cell align win', async () => {
    // Two 200 pt columns without borders: cells 50-250 and 250-450, 4 pt of padding.
    const table = (extra: Record<string, unknown>, rows: unknown[][]) => ({ type: 'add_table', columns: [200, 200], border: { width: 0 }, rows, ...extra });
    const boxes = await boxesOf([table({}, [['עברית', 'Latin'], ['Word', 'שלום']])]);
    near(word(boxes, 'עברית').xMax, 250 - 4, 'a Hebrew cell in the first column ends at its right');
    near(word(boxes, 'Latin').xMin, 250 + 4, 'a Latin cell starts at its left');
    near(word(boxes, 'Word').xMin, 50 + 4, 'a Latin cell starts at its left');
    near(word(boxes, 'שלום').xMax, 450 - 4, 'a Hebrew cell in the second column ends at its right');

    const aligned = await boxesOf([table({ align: 'left' }, [['עברית', { text: 'שלום', align: 'center' }]])]);
    near(word(aligned, 'עברית').xMin, 50 + 4, "the table's align left wins");
    const centred = word(aligned, 'שלום');
    near((centred.xMin + centred.xMax) / 2, 350, "a cell's own align wins over the column's");
  });

  test('HTML: <p dir="rtl">, <html dir="rtl"> and a Hebrew paragraph without dir are right-aligned; dir="ltr", text-align and align win', async () => {
    const boxes = await boxesOf([
      { type: 'add_html', html: '<p dir="rtl">Latin made rtl</p><p>עברית בלי כיוון</p><p dir="ltr">עברית שמאלה</p><p style="text-align: left">שלום משמאל</p><p align="center">מרכז</p>' },
    ]);
    near(word(boxes, 'rtl').xMax, RIGHT, '<p dir="rtl"> ends at the right margin');
    near(Math.max(...['עברית', 'בלי', 'כיוון'].map((w) => word(boxes, w).xMax)), RIGHT, 'a Hebrew paragraph without dir ends at the right margin');
    near(Math.min(word(boxes, 'שמאלה').xMin, boxes.filter((w) => w.word === visual('עברית')).map((w) => w.xMin).reduce((a, b) => Math.min(a, b))), LEFT, 'dir="ltr" starts at the left margin');
    near(Math.min(word(boxes, 'שלום').xMin, word(boxes, 'משמאל').xMin), LEFT, 'text-align: left wins');
    const centre = word(boxes, 'מרכז');
    near((centre.xMin + centre.xMax) / 2, (LEFT + RIGHT) / 2, 'the align attribute wins');

    const document = await boxesOf([
      {
        type: 'add_html',
        html: '<html dir="rtl"><body><p>An English sentence</p><p style="text-align: end">Ending</p><p style="text-align: start">Starting</p><table><tr><td>Cell</td><td>תא</td></tr></table></body></html>',
      },
    ]);
    near(word(document, 'sentence').xMax, RIGHT, '<html dir="rtl"> makes every paragraph right-to-left');
    near(word(document, 'Ending').xMin, LEFT, 'text-align: end is the left in a right-to-left paragraph');
    near(word(document, 'Starting').xMax, RIGHT, 'text-align: start is the right');
    const cell = word(document, 'Cell');
    const hebrewCell = word(document, 'תא');
    // The table spans the content width; a cell's text is 4 pt (a third of 12 pt) plus half a 0.5 pt rule from its edge.
    // A right-to-left table has its first column at the right (test/render-rtl-mirror.test.ts); each cell's text at its right side.
    near(cell.xMax, RIGHT - 4.25, 'the first cell ends at the right of the table');
    assert.ok(hebrewCell.xMin > LEFT + 4.25 + 5 && hebrewCell.xMax < cell.xMin, `the Hebrew cell, second, is left of the first and not at its own left: ${JSON.stringify(hebrewCell)}`);
  });

  test('HTML table cells without dir: Hebrew at the right of its cell, Latin at the left', async () => {
    const boxes = await boxesOf([{ type: 'add_html', html: '<table border="0"><tr><td>Name</td><td>שם מלא ארוך</td></tr><tr><td>A much longer Latin cell</td><td>קצר</td></tr></table>' }]);
    const long = word(boxes, 'שם');
    const short = word(boxes, 'קצר');
    // The second column's cells both end at its right edge, whatever their lengths.
    near(short.xMax, long.xMax, 'a short Hebrew cell ends where the long one does');
    near(word(boxes, 'Name').xMin, word(boxes, 'A').xMin, 'Latin cells start at the same left edge');
  });

  test('a Latin table and Latin HTML are drawn as before: left-aligned', async () => {
    const boxes = await boxesOf([
      { type: 'add_table', columns: [200, 200], border: { width: 0 }, rows: [['One', 'Two']] },
      { type: 'add_html', html: '<p>Plain paragraph</p>' },
    ]);
    near(word(boxes, 'One').xMin, 54, 'first cell');
    near(word(boxes, 'Two').xMin, 254, 'second cell');
    near(word(boxes, 'Plain').xMin, LEFT, 'paragraph');
  });
});
