// A cell's line of text in as few text operations as it can be.
import type { PageCanvas, Rgb } from '../canvas.js';
import type { Run } from '../fonts.js';
import { drawLine, drawPiece, lineAlignment, type Line, type Piece, type TextAlign, type TextStyle, type Unit } from '../inline.js';

/** One text operation of a line: runs drawn from `dx` after the line's start. */
interface TextOp {
  readonly dx: number;
  readonly runs: readonly Run[];
  readonly style: TextStyle;
  readonly width: number;
}

/** Text operations per line; lines are shared by every cell with the same text, so each is planned once. */
const plans = new WeakMap<Line, TextOp[]>();

/**
 * Draws a line like inline.ts's drawLine, in fewer text operations: words
 * of one size and colour whose gap is exactly their font's space go out as
 * one string with the space in it, where drawLine writes one operation per
 * word. On the 10-page invoice that halved the content stream. Justified
 * lines (the gaps stretch) are left to drawLine.
 */
export function drawCellLine(page: PageCanvas, line: Line, left: number, top: number, width: number, align: TextAlign | undefined): void {
  // Undefined or start: the cell's own start side, so a Hebrew cell is right-aligned (inline.ts lineAlignment).
  const alignment = lineAlignment(line, align);
  if (alignment === 'justify' && line.units.length > 1) {
    drawLine(page, line, left, top, width, alignment);
    return;
  }
  let plan = plans.get(line);
  if (plan === undefined) plans.set(line, (plan = planLine(line)));
  const slack = Math.max(0, width - line.width);
  const x = alignment === 'center' ? left + slack / 2 : alignment === 'right' ? left + slack : left;
  const baseline = top + line.baseline;
  if (line.actualText !== undefined) page.beginActualText(line.actualText);
  for (const op of plan) drawPiece(page, op.runs, x + op.dx, baseline, op.style, top, op.width, line.height);
  if (line.actualText !== undefined) page.endActualText();
}

function planLine(line: Line): TextOp[] {
  // One word, one piece (most cells: a code, a quantity, a price): the piece is the operation, and nothing joins onto its runs.
  const only = line.units.length === 1 ? (line.units[0] as Unit).pieces : undefined;
  if (only?.length === 1) {
    const piece = only[0] as Piece;
    return [{ dx: 0, runs: piece.runs, style: piece.style, width: piece.width }];
  }
  const plan: TextOp[] = [];
  let current: { dx: number; runs: Run[]; style: TextStyle; width: number } | undefined;
  let x = 0;
  line.units.forEach((unit, index) => {
    let gap = index > 0 ? unit.spaceBefore : 0;
    for (const piece of unit.pieces) {
      const { style, runs } = piece;
      const plain = style.link === undefined && !style.underline && !style.strike;
      const last = current?.runs[current.runs.length - 1];
      const first = runs[0];
      const sameLook = current !== undefined && plain && current.style.size === style.size && sameColor(current.style.color, style.color);
      // A gap joins only when the font's own space is exactly as wide, so every word lands where layout put it.
      const joins = sameLook && (gap === 0 || (last !== undefined && first !== undefined && last.font === first.font && last.font.widthOf(' ', style.size) === gap));
      if (current !== undefined && joins && last !== undefined && first !== undefined) {
        if (last.font === first.font) {
          current.runs[current.runs.length - 1] = { font: last.font, text: last.text + (gap > 0 ? ' ' : '') + first.text };
          for (let r = 1; r < runs.length; r++) current.runs.push(runs[r] as Run);
        } else current.runs.push(...runs);
        current.width += gap + piece.width;
      } else {
        if (current !== undefined) plan.push(current);
        current = { dx: x + gap, runs: runs.slice(), style, width: piece.width };
        // Links and decorations keep a piece to itself (the link area and the underline follow the piece).
        if (!plain) {
          plan.push(current);
          current = undefined;
        }
      }
      x += gap + piece.width;
      gap = 0;
    }
  });
  if (current !== undefined) plan.push(current);
  return plan;
}

function sameColor(a: Rgb, b: Rgb): boolean {
  return a === b || (a.r === b.r && a.g === b.g && a.b === b.b);
}
