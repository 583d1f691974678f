// How the page canvas writes text (workers/render/canvas.ts): the pieces of
// a line drawn one after another become one text-showing operator, a string
// where each piece starts at the pen (a word drawn with its space before
// it), a TJ array with adjustments where it starts further on (a justified
// line), and positions are what a reader computes from the glyph widths.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BLACK, PageCanvas, type Rgb } from '../../workers/render/canvas.js';
import type { Font } from '../../workers/seams/pdf.js';

/** Every glyph 600/1000 em wide, as Courier: at size 10 a character is 6 pt. */
function monospace(key: string): Font {
  return {
    name: 'Mono',
    key,
    standard: true,
    ascent: 0.8,
    descent: 0.2,
    covers: () => true,
    widthOf: (text, size) => (text.length * 600 * size) / 1000,
    encode: (text) => `(${text})`,
  };
}

const RED: Rgb = { r: 1, g: 0, b: 0 };

/** The operators between BT and ET of the page's stream. */
function textOperators(canvas: PageCanvas): string[] {
  const lines = canvas.content().operators.split('\n');
  return lines.slice(lines.indexOf('BT') + 1, lines.lastIndexOf('ET'));
}

describe('page canvas text', () => {
  const font = monospace('F1');

  test('words drawn at the pen, each with its space before it, are one string', () => {
    const canvas = new PageCanvas(200, 100);
    canvas.text([{ font, text: 'one' }], 10, 20, 10, BLACK);
    canvas.text([{ font, text: ' two' }], 28, 20, 10, BLACK);
    canvas.text([{ font, text: ' three' }], 52, 20, 10, BLACK);
    assert.deepEqual(textOperators(canvas), ['/F1 10 Tf', '10 80 Td (one two three) Tj']);
  });

  test('a piece that starts past the pen is moved there by a TJ adjustment, in thousandths of an em, to the left when positive', () => {
    const canvas = new PageCanvas(200, 100);
    canvas.text([{ font, text: 'one' }], 10, 20, 10, BLACK);
    // The pen is at 10 + 18 = 28; the next word starts 2.5 pt (250 thousandths of 10 pt) further on.
    canvas.text([{ font, text: ' two' }], 30.5, 20, 10, BLACK);
    canvas.text([{ font, text: ' six' }], 30.5 + 24 + 1.234, 20, 10, BLACK);
    assert.deepEqual(textOperators(canvas), ['/F1 10 Tf', '10 80 Td [(one)-250( two)-123( six)] TJ']);
  });

  test('a jump of more than an em, another line, another font or colour starts a new operator', () => {
    const canvas = new PageCanvas(200, 100);
    const bold = monospace('F2');
    canvas.text([{ font, text: 'a' }], 10, 20, 10, BLACK);
    canvas.text([{ font, text: 'column' }], 40, 20, 10, BLACK);
    canvas.text([{ font, text: 'next' }], 10, 32, 10, BLACK);
    canvas.text([{ font: bold, text: ' bold' }], 34, 32, 10, BLACK);
    canvas.text([{ font: bold, text: ' red' }], 64, 32, 10, RED);
    assert.deepEqual(textOperators(canvas), [
      '/F1 10 Tf',
      '10 80 Td (a) Tj',
      '30 0 Td (column) Tj',
      '-30 -12 Td (next) Tj',
      '/F2 10 Tf',
      '24 0 Td ( bold) Tj',
      '1 0 0 rg',
      '30 0 Td ( red) Tj',
    ]);
  });

  test('the pen follows the adjustments as written: no drift along a long justified line', () => {
    const canvas = new PageCanvas(2000, 100);
    // Forty words, each 0.0004 pt further than a whole thousandth of an em: rounding must not add up.
    let x = 10;
    for (let i = 0; i < 40; i++) {
      canvas.text([{ font, text: i === 0 ? 'w' : ' w' }], x, 20, 10, BLACK);
      x += (i === 0 ? 6 : 12) + 3.0004;
    }
    const tj = textOperators(canvas)[1] as string;
    const adjustments = [...tj.matchAll(/\)(-?\d+)\(/g)].map((match) => Number(match[1]));
    assert.equal(adjustments.length, 39);
    // Where a reader puts the last word: the start, plus every glyph's advance, less the adjustments.
    const glyphs = 1 + 39 * 2;
    const lastStart = 10 + (glyphs - 1) * 6 - adjustments.reduce((sum, a) => sum + (a * 10) / 1000, 0) - 6;
    assert.ok(Math.abs(lastStart - (x - 3.0004 - 12)) < 0.01, `${lastStart} against ${x - 3.0004 - 12}`);
  });
});
