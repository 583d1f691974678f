// The glyphs of one text-showing operator (Tj, TJ, ' and ") placed on the
// page (text space to display, ISO 32000-1 section 9.4.4), and which of them
// fall inside an area. A removed glyph's advance becomes a position
// adjustment of the TJ array that replaces the operator, so the glyphs
// before and after stay exactly where they were.
import type { Box, Matrix } from './geometry.js';
import { boxThrough, multiply, overlaps } from './geometry.js';
import type { Operand } from './lexer.js';
import { TjBuilder } from './tj-array.js';
import type { RedactionFont } from '../../seams/pdf-redaction.js';

/**
 * The part of a glyph's em box that must overlap an area for the glyph to go:
 * 15% in from each side horizontally, so a glyph that only touches an area
 * found from its neighbour's text (the areas are exactly the matched glyphs'
 * advances) stays, and from just below the baseline to the x-height region,
 * so a line's glyphs are not taken by an area on the line above or below.
 */
const GLYPH_BOX = { left: 0.15, right: 0.85, bottom: -0.1, top: 0.7 };

/** A font the stream uses without selecting, or one the seam cannot read: one byte per code, half an em wide. */
export const UNKNOWN_FONT: RedactionFont = {
  codes: (bytes) => Array.from(bytes, (code) => ({ code, length: 1, width: 0.5 })),
};

/** The text state parameters (section 9.3) that place glyphs. */
export interface TextState {
  font: RedactionFont;
  size: number;
  charSpacing: number;
  wordSpacing: number;
  scale: number;
  leading: number;
  rise: number;
}

export function freshText(): TextState {
  return { font: UNKNOWN_FONT, size: 0, charSpacing: 0, wordSpacing: 0, scale: 1, leading: 0, rise: 0 };
}

export interface ShownText {
  /** The text matrix after the operator's glyphs. */
  readonly textMatrix: Matrix;
  /** The TJ operand that replaces the operator; null when no glyph went. */
  readonly array: string | null;
  /** Glyphs removed. */
  readonly removed: number;
}

/** Walks the glyphs of `shown` from the text matrix `start`; those whose box overlaps an area are removed. */
export function showText(shown: readonly Operand[], text: TextState, start: Matrix, toDisplay: Matrix, areas: readonly Box[]): ShownText {
  const rendering: Matrix = [text.size * text.scale, 0, 0, text.size, 0, text.rise];
  const out = new TjBuilder();
  let matrix = start;
  let removed = 0;
  for (const element of shown) {
    if (element.kind === 'number') {
      const tx = (-element.value / 1000) * text.size * text.scale;
      matrix = [matrix[0], matrix[1], matrix[2], matrix[3], matrix[4] + tx * matrix[0], matrix[5] + tx * matrix[1]];
      out.number(element.value);
      continue;
    }
    if (element.kind !== 'string') continue;
    let offset = 0;
    for (const glyph of text.font.codes(element.bytes)) {
      const bytes = element.bytes.subarray(offset, offset + glyph.length);
      offset += glyph.length;
      const spacing = text.charSpacing + (glyph.length === 1 && glyph.code === 32 ? text.wordSpacing : 0);
      const glyphToDisplay = multiply(multiply(rendering, matrix), toDisplay);
      const w = glyph.width;
      const box = boxThrough(glyphToDisplay, w * GLYPH_BOX.left, GLYPH_BOX.bottom, w * GLYPH_BOX.right, GLYPH_BOX.top);
      if (areas.some((area) => overlaps(box, area))) {
        removed++;
        // The glyph's advance as a TJ adjustment: tx = -n/1000 x size x scale (section 9.4.4).
        out.number(text.size === 0 ? -w * 1000 : -(w + spacing / text.size) * 1000);
      } else {
        out.bytes(bytes);
      }
      const tx = (w * text.size + spacing) * text.scale;
      matrix = [matrix[0], matrix[1], matrix[2], matrix[3], matrix[4] + tx * matrix[0], matrix[5] + tx * matrix[1]];
    }
  }
  return { textMatrix: matrix, array: removed > 0 ? out.toString() : null, removed };
}
