// One line of a form field drawn in a box that may be narrower than the
// line: text fields' single line and list boxes' rows. A line wider than the
// box keeps its start in view, as viewers scroll a field to the caret: a
// right-aligned (right-to-left) line runs out at the left, a left-aligned
// one at the right. Drawing a Hebrew value from the box's left edge showed
// its end and clipped its first words.
import type { PageCanvas } from '../render/canvas.js';
import { drawLine, lineAlignment, type Line, type TextAlign } from '../render/inline.js';

/** The box's inner rectangle in the canvas's top-down coordinates. */
interface Inside {
  readonly x: number;
  readonly width: number;
}

export function drawRow(canvas: PageCanvas, line: Line, inside: Inside, top: number, align: TextAlign | undefined): void {
  const width = Math.max(inside.width, line.width);
  const alignment = lineAlignment(line, align);
  const left = alignment === 'right' ? inside.x + inside.width - width : alignment === 'center' ? inside.x + (inside.width - width) / 2 : inside.x;
  drawLine(canvas, line, left, top, width, align);
}
