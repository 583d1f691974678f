// Every glyph a page shows, with its Unicode text (pdf.js's, through the
// fonts' ToUnicode maps and encodings) and its box on the page, from the
// reader's operator list walked with the text state of ISO 32000-1 section
// 9.4 (the same arithmetic redact/content.ts uses to find the glyphs in the
// stream, so an area made from a match covers exactly the matched glyphs).
//
// Why not the reader's text runs: a run is one string with one width, and
// pdf.js joins chunks into a run across TJ adjustments, spacing and jumps
// (a corpus table's title joined a "(Revised)" drawn elsewhere), so
// character positions interpolated inside a run drifted by up to 10 points
// and missed the last digits of a matched number.
//
// Annotations' appearances (a filled field's widget, a FreeText comment) are
// walked too, each as a group of its own: pdf.js lists them after the page's
// content, each between beginAnnotation (id, rect, transform, matrix: the
// appearance's /Matrix, then the transform that fits its box to /Rect,
// ISO 32000-1 section 12.5.5) and endAnnotation, with the graphics state
// reset as for a fresh page. A search never joins page text and an
// annotation's text into one match.
import type { Operators, ReaderPage } from '../../read/types.js';
import type { Box, Matrix } from './geometry.js';
import { boxAround, IDENTITY, multiply } from './geometry.js';
import type { TextState as FontedTextState } from './text-show.js';

export interface PlacedGlyph {
  /** What the glyph reads as ('' when the font does not say). */
  readonly text: string;
  /** Its em box (advance by descent to ascent) on the page, in page coordinates. */
  readonly box: Box;
  /** Baseline start and end on the page, and the font size there: for telling line breaks and gaps. */
  readonly start: readonly [number, number];
  readonly end: readonly [number, number];
  readonly size: number;
}

/** The glyphs of one drawing: the page's own content, or one annotation's appearance. */
export interface GlyphGroup {
  readonly glyphs: readonly PlacedGlyph[];
  /** The annotation's /Rect on the page (page coordinates); null for the page's content. */
  readonly annotation: Box | null;
}

/** Forms nest; a hostile file may nest them without end. */
const MAX_DEPTH = 64;

/** The reader gives each glyph's width itself: the text state without the font content.ts reads widths from. */
type TextState = Omit<FontedTextState, 'font'>;

/** The page's content first, then one group per annotation drawn (hidden ones included), in the reader's order. */
export async function pageGlyphs(page: ReaderPage): Promise<GlyphGroup[]> {
  const operators = await page.operators({ annotations: true });
  return walk(operators);
}

const freshText = (): TextState => ({ size: 0, charSpacing: 0, wordSpacing: 0, scale: 1, leading: 0, rise: 0 });

function walk(operators: Operators): GlyphGroup[] {
  const { fnArray, argsArray, ops } = operators;
  const content: PlacedGlyph[] = [];
  const groups: GlyphGroup[] = [{ glyphs: content, annotation: null }];
  let glyphs = content;
  const stack: { ctm: Matrix; text: TextState }[] = [];
  // The state and stack depth where the annotation being drawn began: its appearance may leave q without Q, or Q without q.
  let outside: { ctm: Matrix; text: TextState; depth: number } | null = null;
  let ctm: Matrix = IDENTITY;
  let text: TextState = freshText();
  let textMatrix: Matrix = IDENTITY;
  let lineMatrix: Matrix = IDENTITY;
  const moveLine = (x: number, y: number) => {
    lineMatrix = multiply([1, 0, 0, 1, x, y], lineMatrix);
    textMatrix = lineMatrix;
  };
  const toPage = (m: Matrix, x: number, y: number): [number, number] => {
    const [ux, uy] = [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
    const [px, py] = operators.toPage(ux, uy);
    return [px, py];
  };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = (argsArray[i] ?? []) as unknown[];
    const n = (k: number) => (typeof args[k] === 'number' ? (args[k] as number) : 0);
    if (fn === ops.beginAnnotation) {
      const [, rect, transform, matrix] = args;
      // One that never ended leaves nothing on the stack.
      if (outside === null) outside = { ctm, text, depth: stack.length };
      else stack.length = outside.depth;
      ctm = multiply(isMatrix(matrix) ? matrix : IDENTITY, isMatrix(transform) ? transform : IDENTITY);
      text = freshText();
      textMatrix = lineMatrix = IDENTITY;
      glyphs = [];
      groups.push({ glyphs, annotation: rectOnPage(rect, toPage) });
    } else if (fn === ops.endAnnotation) {
      if (outside !== null) {
        stack.length = Math.min(stack.length, outside.depth);
        ({ ctm, text } = outside);
      }
      outside = null;
      glyphs = content;
    } else if (fn === ops.save || fn === ops.paintFormXObjectBegin) {
      if (stack.length < MAX_DEPTH * 64) stack.push({ ctm, text: { ...text } });
      if (fn === ops.paintFormXObjectBegin && isMatrix(args[0])) ctm = multiply(args[0], ctm);
    } else if (fn === ops.restore || fn === ops.paintFormXObjectEnd) {
      // An appearance's Q never restores a state the page saved.
      if (outside !== null && stack.length <= outside.depth) continue;
      const saved = stack.pop();
      if (saved !== undefined) ({ ctm, text } = saved);
    } else if (fn === ops.transform) {
      if (args.length >= 6) ctm = multiply([n(0), n(1), n(2), n(3), n(4), n(5)], ctm);
    } else if (fn === ops.beginText) {
      textMatrix = IDENTITY;
      lineMatrix = IDENTITY;
    } else if (fn === ops.setFont) {
      text.size = Math.abs(n(1));
    } else if (fn === ops.setCharSpacing) {
      text.charSpacing = n(0);
    } else if (fn === ops.setWordSpacing) {
      text.wordSpacing = n(0);
    } else if (fn === ops.setHScale) {
      text.scale = n(0) / 100;
    } else if (fn === ops.setLeading) {
      text.leading = n(0);
    } else if (fn === ops.setTextRise) {
      text.rise = n(0);
    } else if (fn === ops.moveText) {
      moveLine(n(0), n(1));
    } else if (fn === ops.setLeadingMoveText) {
      text.leading = -n(1);
      moveLine(n(0), n(1));
    } else if (fn === ops.nextLine) {
      moveLine(0, -text.leading);
    } else if (fn === ops.setTextMatrix) {
      const m = isMatrix(args[0]) ? args[0] : args.length >= 6 ? ([n(0), n(1), n(2), n(3), n(4), n(5)] as Matrix) : null;
      if (m !== null) lineMatrix = textMatrix = m;
    } else if (fn === ops.showText && Array.isArray(args[0])) {
      textMatrix = show(args[0] as unknown[], text, textMatrix, ctm, toPage, glyphs);
    }
  }
  return groups;
}

/** An annotation's rect (x0 y0 x1 y1 in user space) as a box on the page; null when the reader gives none. */
function rectOnPage(rect: unknown, toPage: (m: Matrix, x: number, y: number) => [number, number]): Box | null {
  if (!(Array.isArray(rect) || ArrayBuffer.isView(rect))) return null;
  const values = Array.from(rect as ArrayLike<unknown>);
  if (values.length !== 4 || !values.every((value) => typeof value === 'number' && Number.isFinite(value))) return null;
  const [x0, y0, x1, y1] = values as [number, number, number, number];
  return boxAround([toPage(IDENTITY, x0, y0), toPage(IDENTITY, x1, y0), toPage(IDENTITY, x0, y1), toPage(IDENTITY, x1, y1)]);
}

function show(items: readonly unknown[], text: TextState, start: Matrix, ctm: Matrix, toPage: (m: Matrix, x: number, y: number) => [number, number], out: PlacedGlyph[]): Matrix {
  let matrix = start;
  const advance = (tx: number) => {
    matrix = [matrix[0], matrix[1], matrix[2], matrix[3], matrix[4] + tx * matrix[0], matrix[5] + tx * matrix[1]];
  };
  for (const item of items) {
    if (typeof item === 'number') {
      advance((-item / 1000) * text.size * text.scale);
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    const glyph = item as { unicode?: unknown; width?: unknown; isSpace?: unknown };
    const width = typeof glyph.width === 'number' && Number.isFinite(glyph.width) ? glyph.width / 1000 : 0;
    const spacing = text.charSpacing + (glyph.isSpace === true ? text.wordSpacing : 0);
    const toUser = multiply(multiply([text.size * text.scale, 0, 0, text.size, 0, text.rise], matrix), ctm);
    const corners = [toPage(toUser, 0, -0.2), toPage(toUser, width, -0.2), toPage(toUser, 0, 0.8), toPage(toUser, width, 0.8)];
    const origin = toPage(toUser, 0, 0);
    const end = toPage(toUser, width, 0);
    const up = toPage(toUser, 0, 1);
    out.push({
      text: typeof glyph.unicode === 'string' ? glyph.unicode : '',
      box: boxAround(corners),
      start: origin,
      end,
      size: Math.hypot(up[0] - origin[0], up[1] - origin[1]),
    });
    advance((width * text.size + spacing) * text.scale);
  }
  return matrix;
}

function isMatrix(value: unknown): value is Matrix {
  return (Array.isArray(value) || ArrayBuffer.isView(value)) && (value as ArrayLike<unknown>).length === 6 && Array.from(value as ArrayLike<unknown>).every((v) => typeof v === 'number');
}
