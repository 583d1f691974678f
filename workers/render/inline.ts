// Inline layout: styled spans of text into lines of a given width, and the
// drawing of those lines. Used by add_text, table cells and HTML paragraphs.
//
// Breaks fall only at whitespace. Pieces of different styles with no space
// between them ("<b>bold</b>ly") form one unbreakable unit; a unit wider than
// the line is broken between characters. Newlines are hard breaks.
import type { PageCanvas, Rgb } from './canvas.js';
import type { FontBook, FontChoice, Run } from './fonts.js';

export interface TextStyle extends FontChoice {
  readonly size: number;
  readonly color: Rgb;
  /** Line height as a multiple of the size. */
  readonly lineHeight: number;
  readonly underline: boolean;
  readonly strike: boolean;
  /** http, https or mailto target of a link. */
  readonly link?: string;
}

export interface Span {
  readonly text: string;
  readonly style: TextStyle;
}

export type Align = 'left' | 'center' | 'right' | 'justify';

export interface Piece {
  readonly runs: readonly Run[];
  readonly width: number;
  readonly style: TextStyle;
}

export interface Unit {
  readonly pieces: Piece[];
  width: number;
  /** Width of the space before the unit, in the style of the text around it; 0 when glued or first. */
  spaceBefore: number;
}

export interface Line {
  readonly units: readonly Unit[];
  /** Natural width: units plus the spaces between them. */
  readonly width: number;
  readonly height: number;
  /** From the line's top to its baseline. */
  readonly baseline: number;
  /** The paragraph's last line or one ended by a newline: never justified. */
  readonly last: boolean;
}

/** Loads every fallback font the spans need; layout itself is synchronous. */
export async function prepareSpans(spans: readonly Span[], fonts: FontBook): Promise<void> {
  for (const span of spans) {
    const loading = fonts.prepare(span.text, span.style);
    if (loading !== undefined) await loading;
  }
}

/**
 * Lines of the spans at `width`. `maxHeight` stops the layout once the lines
 * pass it (absolute text on a page), so a huge text placed near the bottom
 * costs no more than what fits; callers compare the result's height.
 */
export function layoutLines(spans: readonly Span[], width: number, fonts: FontBook, maxHeight = Number.POSITIVE_INFINITY): Line[] {
  const lines: Line[] = [];
  let units: Unit[] = [];
  let lineWidth = 0;
  let pendingSpace = 0;
  let glue = false;
  let lastStyle: TextStyle | undefined;

  let height = 0;
  const endLine = (last: boolean) => {
    const line = makeLine(units, lineWidth, last, lastStyle, fonts);
    lines.push(line);
    height += line.height;
    units = [];
    lineWidth = 0;
  };

  const place = (piece: Piece) => {
    const current = units[units.length - 1];
    if (glue && current !== undefined) {
      if (lineWidth + piece.width > width) {
        // The glued unit no longer fits: it moves to a line of its own...
        if (units.length > 1) {
          units.pop();
          lineWidth -= current.width + current.spaceBefore;
          endLine(false);
          current.spaceBefore = 0;
          units.push(current);
          lineWidth = current.width;
        }
        // ...and if it is too wide even there, it breaks where its styles change
        // (each piece is already no wider than the line).
        if (lineWidth + piece.width > width) {
          endLine(false);
          units.push({ pieces: [piece], width: piece.width, spaceBefore: 0 });
          lineWidth = piece.width;
          return;
        }
      }
      current.pieces.push(piece);
      current.width += piece.width;
      lineWidth += piece.width;
      return;
    }
    const space = units.length === 0 ? 0 : pendingSpace;
    if (units.length > 0 && lineWidth + space + piece.width > width) endLine(false);
    const spaceBefore = units.length === 0 ? 0 : space;
    units.push({ pieces: [piece], width: piece.width, spaceBefore });
    lineWidth += spaceBefore + piece.width;
  };

  for (const span of spans) {
    if (height > maxHeight) break;
    const { style } = span;
    lastStyle = style;
    const spaceWidth = fonts.primary(style).widthOf(' ', style.size);
    // Tokens: words, runs of spaces/tabs, and newlines.
    for (const token of span.text.match(/\r\n|\n|\r|[ \t]+|[^ \t\r\n]+/g) ?? []) {
      if (height > maxHeight) break;
      if (token === '\n' || token === '\r\n' || token === '\r') {
        endLine(true);
        glue = false;
        pendingSpace = 0;
        continue;
      }
      if (token[0] === ' ' || token[0] === '\t') {
        glue = false;
        pendingSpace = spaceWidth;
        continue;
      }
      // A word wider than the line comes back in pieces, each on a line of its own.
      measure(token, style, width, fonts).forEach((piece, index) => {
        if (index > 0) {
          endLine(false);
          glue = false;
        }
        place(piece);
        glue = true;
      });
    }
  }
  if (units.length > 0 || lines.length === 0) endLine(true);
  return lines;
}

/** A word as pieces no wider than `width` (one piece unless the word itself is wider). */
function measure(word: string, style: TextStyle, width: number, fonts: FontBook): Piece[] {
  const runs = fonts.runs(word, style);
  const total = runs.reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0);
  if (total <= width) return [{ runs, width: total, style }];
  const pieces: Piece[] = [];
  let chars = '';
  let charsWidth = 0;
  for (const char of word) {
    const w = fonts.runs(char, style).reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0);
    if (chars !== '' && charsWidth + w > width) {
      pieces.push({ runs: fonts.runs(chars, style), width: charsWidth, style });
      chars = '';
      charsWidth = 0;
    }
    chars += char;
    charsWidth += w;
  }
  if (chars !== '') pieces.push({ runs: fonts.runs(chars, style), width: charsWidth, style });
  return pieces;
}

/** A line of units, with its height and baseline (also used by html/pre.ts for preformatted lines). */
export function makeLine(units: Unit[], width: number, last: boolean, fallbackStyle: TextStyle | undefined, fonts: FontBook): Line {
  // Line metrics come from each piece's own family font, not from fallback
  // faces, so a line with one Greek word keeps the paragraph's rhythm.
  let ascent = 0;
  let descent = 0;
  let height = 0;
  const measureStyle = (style: TextStyle) => {
    const font = fonts.primary(style);
    ascent = Math.max(ascent, font.ascent * style.size);
    descent = Math.max(descent, font.descent * style.size);
    height = Math.max(height, style.size * style.lineHeight);
  };
  for (const unit of units) for (const piece of unit.pieces) measureStyle(piece.style);
  if (height === 0 && fallbackStyle !== undefined) measureStyle(fallbackStyle);
  height = Math.max(height, ascent + descent);
  const baseline = (height - (ascent + descent)) / 2 + ascent;
  return { units, width, height, baseline, last };
}

/** Draws lines from `top`; returns the height used. */
export function drawLines(canvas: PageCanvas, lines: readonly Line[], left: number, top: number, width: number, align: Align): number {
  let y = top;
  for (const line of lines) {
    drawLine(canvas, line, left, y, width, align);
    y += line.height;
  }
  return y - top;
}

export function drawLine(canvas: PageCanvas, line: Line, left: number, top: number, width: number, align: Align): void {
  const slack = Math.max(0, width - line.width);
  const gaps = line.units.length - 1;
  const justify = align === 'justify' && !line.last && gaps > 0;
  const extra = justify ? slack / gaps : 0;
  let x = align === 'center' ? left + slack / 2 : align === 'right' ? left + slack : left;
  const baseline = top + line.baseline;
  line.units.forEach((unit, index) => {
    if (index > 0) x += unit.spaceBefore + extra;
    for (const piece of unit.pieces) {
      const { style } = piece;
      canvas.text(piece.runs, x, baseline, style.size, style.color, style);
      if (style.link !== undefined) canvas.link(x, top, piece.width, line.height, style.link);
      x += piece.width;
    }
  });
}
