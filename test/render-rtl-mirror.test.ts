// Right-to-left HTML tables and lists are drawn as browsers draw them
// (issue 15): a table whose direction is rtl (dir on it or an ancestor, or
// CSS direction) has its first column at the right, colspans and short rows
// included, and a right-to-left list has its markers and its indent at the
// right. A table without a direction keeps its first column at the left.
// Checked where poppler finds the words (pdftotext -bbox); the tagged
// render keeps the logical order (first column first, marker before the
// item's text) and passes our own check-accessibility.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfStructure, wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** A4 with 50 pt margins: the content runs from x 50 to 545. */
const LEFT = 50;
const RIGHT = 545;
const visual = (word: string): string => [...word].reverse().join('');

function word(boxes: readonly WordBox[], text: string): WordBox {
  const found = boxes.find((w) => w.word === text || w.word === visual(text));
  assert.ok(found !== undefined, `${text} in ${boxes.map((w) => w.word).join(' ')}`);
  return found;
}

const TABLE = '<table><thead><tr><th>Alpha</th><th>Beta</th><th>Gamma</th></tr></thead><tr><td>One</td><td colspan="2">Wide</td></tr><tr><td>Short</td></tr></table>';

describe('right-to-left HTML tables and lists', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());
  const render = (html: string, output?: Record<string, unknown>) =>
    renderPdf(s.base, { margin: LEFT, operations: [{ type: 'add_html', html }], ...(output === undefined ? {} : { output, metadata: { title: 'RTL', language: 'he' } }) });

  test('a table with dir="rtl" has its first column at the right; without a direction, at the left', async () => {
    const ltr = await wordBoxes(await render(TABLE));
    assert.ok(word(ltr, 'Alpha').xMin < word(ltr, 'Beta').xMin && word(ltr, 'Beta').xMin < word(ltr, 'Gamma').xMin, 'left to right by default');
    for (const html of [TABLE.replace('<table>', '<table dir="rtl">'), `<div dir="rtl">${TABLE}</div>`, TABLE.replace('<table>', '<table style="direction: rtl">')]) {
      const rtl = await wordBoxes(await render(html));
      const [alpha, beta, gamma] = ['Alpha', 'Beta', 'Gamma'].map((w) => word(rtl, w)) as [WordBox, WordBox, WordBox];
      assert.ok(alpha.xMin > beta.xMin && beta.xMin > gamma.xMin, `${html}: first column at the right (${alpha.xMin}, ${beta.xMin}, ${gamma.xMin})`);
      assert.ok(alpha.xMax > RIGHT - 80 && gamma.xMin < RIGHT - 80, 'the header row spans the table from the right');
      // A cell spanning the second and third columns lies left of the first column, over both.
      const wide = word(rtl, 'Wide');
      assert.ok(wide.xMax < alpha.xMin && wide.xMin > gamma.xMin - 200, `the colspan cell is left of the first column (${wide.xMin}-${wide.xMax})`);
      // A short row's single cell is in the first column, at the right.
      assert.ok(Math.abs(word(rtl, 'Short').xMin - word(rtl, 'One').xMin) < 40 && word(rtl, 'Short').xMin > beta.xMin, 'a short row starts at the right');
    }
  });

  test('a right-to-left list has its markers and indent at the right; a left-to-right one at the left', async () => {
    const html = '<ul dir="rtl"><li>שלום עולם</li><li>Latin item</li></ul><ol dir="rtl"><li>ראשון</li><li>שני</li></ol><ul><li>Left item</li></ul>';
    const boxes = await wordBoxes(await render(html));
    const bullets = boxes.filter((w) => w.word === '•');
    assert.equal(bullets.length, 3);
    const [first, second, third] = bullets as [WordBox, WordBox, WordBox];
    const shalom = word(boxes, 'שלום');
    assert.ok(first.xMin > shalom.xMax, `the bullet is right of the item's text (${first.xMin} > ${shalom.xMax})`);
    assert.ok(first.xMax <= RIGHT + 0.5 && shalom.xMax < RIGHT - 10, 'the indent is at the right');
    // A Latin item in a right-to-left list is right-aligned too (its paragraph takes the list's direction), left of the bullet.
    assert.ok(second.xMin > word(boxes, 'item').xMax);
    const numbers = boxes.filter((w) => /^\.?[12]\.?$/.test(w.word));
    assert.deepEqual(numbers.map((w) => w.word), ['.1', '.2'], 'numbers read as in a right-to-left paragraph');
    assert.ok((numbers[0] as WordBox).xMin > word(boxes, 'ראשון').xMax);
    assert.ok(third.xMax < word(boxes, 'Left').xMin && third.xMin >= LEFT, 'a left-to-right list keeps its bullet at the left');
  });

  test('tagged: cells and list items keep their logical order, and the document passes check-accessibility', async () => {
    const pdf = await render(`<div dir="rtl">${TABLE}<ol><li>ראשון</li><li>שני</li></ol></div>`, { tagged: true });
    const tree = await pdfStructure(pdf);
    const texts = tree.map((line) => line.text).filter((text) => text.startsWith('"'));
    const at = (text: string) => texts.findIndex((t) => t.includes(text) || t.includes(visual(text)));
    assert.ok(at('Alpha') < at('Beta') && at('Beta') < at('Gamma') && at('Gamma') < at('One') && at('One') < at('Wide'), texts.join(' | '));
    const items = tree.map((line) => line.role).filter((role) => role === 'Lbl' || role === 'LBody');
    assert.deepEqual(items, ['Lbl', 'LBody', 'Lbl', 'LBody']);
    const response = await fetch(`${s.base}/api/v1/check-accessibility`, {
      method: 'POST',
      headers: { ...bearer(KEYS.pro), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: Buffer.from(pdf).toString('base64') }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(((await response.json()) as { data: { failures: unknown[] } }).data.failures, []);
  });
});
