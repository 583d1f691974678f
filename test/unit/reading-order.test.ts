// Lines, blocks and reading order (workers/read/layout/) on text items laid
// out by hand, so each rule is seen alone: columns read one after the other
// even when their paragraph gaps line up, a heading across both comes first,
// lines split at a gutter, rotated text grouped in its own direction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutPage } from '../../workers/read/layout/page-layout.js';
import { readingOrder } from '../../workers/read/layout/order.js';
import type { TextItem } from '../../workers/read/types.js';

function item(text: string, x: number, y: number, size = 10, rotation = 0): TextItem {
  return {
    text,
    x,
    y,
    width: text.length * size * 0.5,
    height: size * 1.1,
    baseline: y + size * 0.9,
    font: 'Helvetica',
    fontSize: size,
    color: '#000000',
    bold: false,
    italic: false,
    rotation,
    invisible: false,
    endsLine: true,
    advances: null,
  };
}

/** A paragraph of `lines` lines at (x, y), 12 pt apart. */
function paragraph(label: string, x: number, y: number, lines: number): TextItem[] {
  return Array.from({ length: lines }, (_, i) => item(`${label} line ${i + 1} of the column text`, x, y + i * 12));
}

test('two columns whose paragraph gaps line up still read column by column, after a heading across both', () => {
  const items = [
    item('A heading that spans both of the columns below it', 50, 40, 16),
    ...paragraph('L1', 50, 100, 4),
    ...paragraph('R1', 320, 100, 4),
    // Both columns' second paragraphs start at the same height: a band cut there would interleave them.
    ...paragraph('L2', 50, 170, 3),
    ...paragraph('R2', 320, 170, 3),
  ];
  const blocks = layoutPage(items);
  assert.deepEqual(
    blocks.map((b) => b.text.split(' ')[0]),
    ['A', 'L1', 'L2', 'R1', 'R2'],
  );
  assert.equal(blocks[1]?.lines.length, 4);
});

test('items on one baseline are split into two lines at a gutter, joined with a space across a word gap', () => {
  const items = [item('left', 50, 100), item('cell', 300, 100), item('word', 72, 100)];
  // "left" ends at 70; "word" starts 2 pt later (a space), "cell" far away (a gutter).
  const blocks = layoutPage(items);
  assert.deepEqual(blocks.map((b) => b.text), ['left word', 'cell']);
});

test('rotated text forms its own lines and blocks', () => {
  const items = [item('upright text here', 50, 100), item('sideways one', 400, 300, 10, 270), item('sideways two', 412, 300, 10, 270)];
  const blocks = layoutPage(items);
  assert.equal(blocks.length, 2);
  const sideways = blocks.find((b) => b.rotation === 270);
  assert.ok(sideways);
  assert.equal(sideways.lines.length, 2);
  assert.ok(sideways.height > sideways.width, JSON.stringify(sideways));
});

test('a letter: address block left and date right at one height, the body below across the page', () => {
  const boxes = [
    { x: 50, y: 300, width: 500, height: 100 }, // body
    { x: 400, y: 120, width: 140, height: 12 }, // date
    { x: 50, y: 120, width: 160, height: 60 }, // address
    { x: 50, y: 40, width: 200, height: 20 }, // letterhead
  ];
  assert.deepEqual(readingOrder(boxes), [3, 2, 1, 0]);
});

test('text painted twice on one spot (fake bold) is read once; the longer of two overlapping runs stays', () => {
  const items = [item('BIRD ISLAND', 100, 100), item('BIRD ISLAND', 100.3, 100.2), item('PREV', 100, 130), item('PREV.', 100.2, 130), item('BIRD ISLAND', 300, 100)];
  assert.deepEqual(layoutPage(items).map((b) => b.text), ['BIRD ISLAND', 'PREV.', 'BIRD ISLAND']);
});
