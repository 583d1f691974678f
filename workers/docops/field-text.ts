// fill-form's layout of the text values pdf-lib's appearance providers
// draw wrongly, done by the render engine's own modules so a value shows
// in a form as it does in a rendered document:
// - right-to-left and mixed values (Hebrew with numbers and Latin names):
//   levels and visual order by the Unicode Bidirectional Algorithm
//   (render/bidi.ts); pdf-lib hands the whole string to fontkit, which
//   reversed "עם 123 ו-Platen" into "netalP-ו 321 עם";
// - Arabic shaped (joining forms) by fontkit's layout, run by run;
// - several fonts in one value, run by run by script (render/fonts.ts):
//   the field's /DA font for what it covers (Helvetica, Times or Courier
//   when /DA names a standard font; Helvetica otherwise, as before), DejaVu
//   for the rest of Latin, Greek, Cyrillic, Hebrew and Arabic, the Noto
//   faces for the other scripts. "Name: नमस्ते" was refused when one font
//   had to draw it all;
// - Indic and Thai values, whose shaped glyphs are out of character order,
//   carry their text as /ActualText (render/inline.ts), so pdftotext of a
//   flattened form gives the value back.
//
// Alignment (README "fill-form"): the field's /Q when the field, a parent
// or the form sets one; with none, the text's start side, so a
// right-to-left value is right-aligned, as a person typing it in a viewer
// that follows its direction sees it. Values pdf-lib draws right (one font,
// left to right, no reordered script) stay with pdf-lib.
import { paragraphLevels, reorder, visualRuns, visualSegment } from '../render/bidi.js';
import { PageCanvas } from '../render/canvas.js';
import { standardFamilyOf, type FontBook, type FontChoice } from '../render/fonts.js';
import { drawLine, layoutLines, prepareSpans, REORDERED_SCRIPTS, type Line, type TextStyle } from '../render/inline.js';
import type { DrawFieldText, FieldTextBox, FieldTextDrawing } from '../seams/pdf-form.js';
import { withFieldBook } from './field-book.js';
import { drawRow } from './field-row.js';
import { segmentsOf } from '../util/segments.js';

/** pdf-lib's bounds for an automatic size: 4 pt at least; multi-line text from 12 pt down, as pdf-form-appearance.ts does. */
const MIN_SIZE = 4;
const MAX_SINGLE_LINE_SIZE = 500;
const MAX_MULTILINE_SIZE = 12;
/** pdf-lib's line height for form text: 1.2 times the font's height. */
const LINE_HEIGHT = 1.2;
const HELVETICA: FontChoice = { family: 'Helvetica', bold: false, italic: false };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A drawer for one fill: `oneFont(text)` says whether a single font (Helvetica
 * or one fallback) has every character, which pdf-lib's provider needs.
 */
export function fieldTextDrawer(oneFont: (text: string) => boolean): DrawFieldText {
  // A value the request did not send (a field without an appearance) in characters no font has: pdf-lib draws it as before.
  const draw = withFieldBook(drawBox);
  return async (box, fonts) => {
    const { text } = box;
    const { levels, base } = paragraphLevels(text);
    if (levels === undefined && base === 0 && !REORDERED_SCRIPTS.test(text) && oneFont(text)) return undefined;
    return draw(box, fonts);
  };
}

async function drawBox(box: FieldTextBox, book: FontBook): Promise<FieldTextDrawing> {
  const choice = standardFamilyOf(box.standardFont ?? 'Helvetica') ?? HELVETICA;
  const styleAt = (size: number): TextStyle => ({ ...choice, size, color: box.colour, lineHeight: LINE_HEIGHT, underline: false, strike: false });
  // A single-line field shows its lines as one (pdf-lib's mergeLines).
  const text = box.multiline ? box.text : box.text.replace(/\r\n|\r|\n/g, ' ');
  await prepareSpans([{ text, style: styleAt(12) }], book);
  const canvas = new PageCanvas(box.width, box.height);
  let size: number;
  if (box.comb && box.maxLength !== undefined && box.maxLength > 0) size = drawComb(canvas, box, text, book, styleAt);
  else if (box.multiline) size = drawMultiline(canvas, box, text, book, styleAt);
  else size = drawSingleLine(canvas, box, text, book, styleAt);
  const content = canvas.content();
  return { operators: content.operators, fonts: content.fonts, fontSize: size };
}

type StyleAt = (size: number) => TextStyle;

function drawSingleLine(canvas: PageCanvas, box: FieldTextBox, text: string, book: FontBook, styleAt: StyleAt): number {
  const { inside } = box;
  const layout = (size: number): Line => layoutLines([{ text, style: styleAt(size) }], Number.POSITIVE_INFINITY, book)[0] as Line;
  let size = box.fontSize;
  if (size === 0) {
    // Largest whole size at which the line fits both ways, as pdf-lib sizes its own single-line fields.
    const probe = layout(10);
    const byWidth = probe.width > 0 ? (inside.width / probe.width) * 10 : MAX_SINGLE_LINE_SIZE;
    const byHeight = (inside.height / probe.height) * 10;
    size = Math.min(MAX_SINGLE_LINE_SIZE, Math.max(MIN_SIZE, Math.floor(Math.min(byWidth, byHeight))));
  }
  const line = layout(size);
  // Vertically centred on the primary font's cap region, where pdf-lib puts it: baseline at mid-height less half the ascent.
  const ascent = book.primary(styleAt(size)).ascent * size;
  const baselineFromTop = inside.top + inside.height / 2 + ascent / 2;
  drawRow(canvas, line, inside, baselineFromTop - line.baseline, box.alignment);
  return size;
}

function drawMultiline(canvas: PageCanvas, box: FieldTextBox, text: string, book: FontBook, styleAt: StyleAt): number {
  const { inside } = box;
  const layout = (size: number): Line[] => layoutLines([{ text, style: styleAt(size) }], inside.width, book);
  let size = box.fontSize;
  if (size === 0) {
    for (size = MAX_MULTILINE_SIZE; size > MIN_SIZE; size -= 0.5) {
      if (layout(size).reduce((sum, line) => sum + line.height, 0) <= inside.height) break;
    }
  }
  const lines = layout(size);
  let top = inside.top;
  for (const line of lines) {
    drawLine(canvas, line, inside.x, top, inside.width, box.alignment);
    top += line.height;
  }
  return size;
}

/**
 * A comb field: one grapheme per cell, in visual order (rule L2 over the
 * graphemes), from the start side unless /Q says otherwise. Each cell's
 * glyphs are shaped alone, so Arabic letters show their isolated forms, as
 * in the boxes of a paper form.
 */
function drawComb(canvas: PageCanvas, box: FieldTextBox, text: string, book: FontBook, styleAt: StyleAt): number {
  const { inside } = box;
  const cells = box.maxLength as number;
  const cellWidth = inside.width / cells;
  const { base, levels } = paragraphLevels(text);
  // Only the graphemes the comb has cells for (a long value's every grapheme was once kept, each with a copy of the value).
  const logical: { segment: string; level: number }[] = [];
  for (const { segment, index } of segmentsOf(graphemes, text)) {
    if (logical.length === cells) break;
    logical.push({ segment, level: levels?.[index] ?? base });
  }
  const visual = reorder(logical);
  let size = box.fontSize;
  if (size === 0) {
    const widest = Math.max(0, ...visual.map(({ segment, level }) => width(book, visualSegment(segment, level), styleAt(10))));
    const byWidth = widest > 0 ? (cellWidth / widest) * 10 : MAX_SINGLE_LINE_SIZE;
    const byHeight = inside.height / LINE_HEIGHT;
    size = Math.min(MAX_SINGLE_LINE_SIZE, Math.max(MIN_SIZE, Math.floor(Math.min(byWidth, byHeight))));
  }
  const style = styleAt(size);
  const alignment = box.alignment ?? (base === 1 ? 'right' : 'left');
  const first = alignment === 'right' ? cells - visual.length : alignment === 'center' ? Math.floor((cells - visual.length) / 2) : 0;
  const baseline = inside.top + inside.height / 2 + (book.primary(style).ascent * size) / 2;
  visual.forEach(({ segment, level }, i) => {
    const runs = visualRuns(book.runs(visualSegment(segment, level), style), level);
    const drawn = runs.reduce((sum, run) => sum + run.font.widthOf(run.text, size), 0);
    canvas.text(runs, inside.x + (first + i) * cellWidth + (cellWidth - drawn) / 2, baseline, size, style.color);
  });
  return size;
}

function width(book: FontBook, text: string, style: TextStyle): number {
  return book.runs(text, style).reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0);
}
