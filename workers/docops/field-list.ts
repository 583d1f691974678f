// fill-form's layout of list boxes' rows, by the render engine's own
// modules as field-text.ts lays out text fields: each option one row,
// shaped, in the visual order of the Unicode Bidirectional Algorithm
// (render/bidi.ts), run by run in the fonts that have its characters (the
// field's /DA standard font, DejaVu, the Noto faces), an Indic or Thai row
// with /ActualText. A row is aligned by the field's /Q when one is set, else
// by its own direction: a Hebrew or Arabic option at the right, a Latin one
// at the left, as a viewer that follows each option's direction shows them.
// The seam (workers/seams/pdf-form-list.ts) draws the frame and the
// highlighted rows around what this returns.
import { standardFamilyOf, type FontBook, type FontChoice } from '../render/fonts.js';
import { PageCanvas } from '../render/canvas.js';
import { layoutLines, prepareSpans, type Line, type TextStyle } from '../render/inline.js';
import { withFieldBook } from './field-book.js';
import { drawRow } from './field-row.js';
import type { DrawFieldList, FieldListBox, FieldListDrawing } from '../seams/pdf-form.js';

/** pdf-lib's bounds for an automatic size. */
const MIN_SIZE = 4;
const MAX_SIZE = 500;
/** pdf-lib's line height for form text: 1.2 times the font's height; a row is one line. */
const LINE_HEIGHT = 1.2;
const HELVETICA: FontChoice = { family: 'Helvetica', bold: false, italic: false };

/** A drawer for one fill; an option (the document's, not the request's) in characters no font has leaves the list to pdf-lib. */
export function fieldListDrawer(): DrawFieldList {
  return withFieldBook(drawRows);
}

async function drawRows(box: FieldListBox, book: FontBook): Promise<FieldListDrawing> {
  const choice = standardFamilyOf(box.standardFont ?? 'Helvetica') ?? HELVETICA;
  const styleAt = (size: number): TextStyle => ({ ...choice, size, color: box.colour, lineHeight: LINE_HEIGHT, underline: false, strike: false });
  // One row an option: a line break in an option's text is a space, as in a single-line field.
  const rows = box.options.map((option) => option.replace(/\r\n|\r|\n/g, ' '));
  await prepareSpans(
    rows.map((text) => ({ text, style: styleAt(12) })),
    book,
  );
  const layout = (size: number, texts: readonly string[]): Line[] => texts.map((text) => layoutLines([{ text, style: styleAt(size) }], Number.POSITIVE_INFINITY, book)[0] as Line);
  const { inside } = box;
  const size = box.fontSize > 0 ? box.fontSize : automaticSize(layout(10, rows), inside);
  // Rows below the box are not drawn (nor extracted); the one the bottom cuts through is clipped by the frame.
  const rowHeight = layout(size, [''])[0]?.height ?? size * LINE_HEIGHT;
  const visible = Math.max(0, Math.ceil(inside.height / rowHeight));
  const lines = layout(size, rows.slice(box.topIndex, box.topIndex + visible));
  const canvas = new PageCanvas(box.width, box.height);
  lines.forEach((line, k) => drawRow(canvas, line, inside, inside.top + k * rowHeight, box.alignment));
  const content = canvas.content();
  return { operators: content.operators, fonts: content.fonts, fontSize: size, rowHeight };
}

/**
 * An automatic size (/DA size 0), as pdf-lib's list boxes choose it: the
 * largest whole size at which every option fits the box's width on its row
 * and all the rows its height (pdf.js fits all rows to the height too).
 * `probe`: the rows laid out at 10 pt; width and height scale with the size.
 */
function automaticSize(probe: readonly Line[], inside: FieldListBox['inside']): number {
  const widest = Math.max(0, ...probe.map((line) => line.width));
  const height = probe.reduce((sum, line) => sum + line.height, 0);
  const byWidth = widest > 0 ? (inside.width / widest) * 10 : MAX_SIZE;
  const byHeight = height > 0 ? (inside.height / height) * 10 : MAX_SIZE;
  return Math.min(MAX_SIZE, Math.max(MIN_SIZE, Math.floor(Math.min(byWidth, byHeight))));
}
