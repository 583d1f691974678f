// Compare's tokens and change building (workers/compare/), on text items
// and image marks written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageChanges, wordChanges } from '../../workers/compare/changes.js';
import type { ImageMark } from '../../workers/compare/images.js';
import { semanticTokens, textTokens } from '../../workers/compare/tokens.js';
import type { TextItem } from '../../workers/read/types.js';

const item = (text: string, x: number, y: number, extra: Partial<TextItem> = {}): TextItem => ({
  text,
  x,
  y,
  width: text.length * 6,
  height: 12,
  baseline: y + 9,
  font: 'Helvetica',
  fontSize: 10,
  color: '#000000',
  bold: false,
  italic: false,
  rotation: 0,
  invisible: false,
  endsLine: true,
  ...extra,
});

test('semantic tokens: a word hyphenated at a line end is joined, but not before a capital; NFKC; soft hyphens dropped', () => {
  const lines = [[item('an exam-', 0, 0)], [item('ple of well-', 0, 14)], [item('Known Jean-', 0, 28)], [item('Paul ﬁle co\u00ADop', 0, 42)]];
  assert.deepEqual(
    semanticTokens(lines, 1).map((t) => t.key),
    ['an', 'example', 'of', 'well-', 'Known', 'Jean-', 'Paul', 'file', 'coop'],
  );
  // Text tokens keep the words as drawn.
  assert.deepEqual(
    textTokens(lines.flat(), 1).map((t) => t.text),
    ['an', 'exam-', 'ple', 'of', 'well-', 'Known', 'Jean-', 'Paul', 'ﬁle', 'co\u00ADop'],
  );
});

test('word changes: a run of differing words is one change; only-before is a deletion, only-after an addition', () => {
  const a = textTokens([item('pay within thirty days of delivery', 0, 0)], 1);
  const b = textTokens([item('pay within sixty days of delivery to us', 0, 0)], 2);
  const changes = wordChanges(a, b, false);
  assert.deepEqual(
    changes.map((c) => [c.type, c.page, c.before, c.after]),
    [
      ['modification', 2, 'thirty', 'sixty'],
      ['addition', 2, '', 'to us'],
    ],
  );
  assert.deepEqual(wordChanges(b, a, false).map((c) => [c.type, c.page, c.before]), [['modification', 1, 'sixty'], ['deletion', 2, 'to us']]);
});

test('format changes group neighbouring words that changed the same way, and only when formatting counts', () => {
  const a = textTokens([item('Total due now', 0, 0)], 1);
  const b = textTokens([item('Total', 0, 0), item('due now', 40, 0, { font: 'Helvetica-Bold', color: '#ff0000' })], 1);
  assert.deepEqual(
    wordChanges(a, b, true).map((c) => [c.type, c.before, c.after, c.text]),
    [['format', 'Helvetica 10pt #000000', 'Helvetica-Bold 10pt #ff0000', 'due now']],
  );
  assert.deepEqual(wordChanges(a, b, false), []);
});

const mark = (hash: string, x: number, y = 100): ImageMark => ({ hash, x, y, width: 80, height: 40, pixelWidth: 40, pixelHeight: 20 });

test('images: same pixels same place unchanged; moved or repainted is changed; the rest added or removed, on their own pages', () => {
  assert.deepEqual(imageChanges([mark('aa', 100)], 1, [mark('aa', 100.5)], 1), []);
  assert.deepEqual(imageChanges([mark('aa', 100)], 1, [mark('aa', 300)], 1).map((c) => [c.type, c.position.x]), [['image_changed', 300]]);
  assert.deepEqual(imageChanges([mark('aa', 100)], 1, [mark('bb', 110)], 1).map((c) => c.type), ['image_changed']);
  assert.deepEqual(
    imageChanges([mark('aa', 100)], 3, [mark('bb', 400, 500)], 4).map((c) => [c.type, c.page]),
    [
      ['image_removed', 3],
      ['image_added', 4],
    ],
  );
});
