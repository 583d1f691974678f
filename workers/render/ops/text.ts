// add_text: a paragraph. Without x/y it flows: from the cursor, wrapped in
// the content width (or `width`), aligned, breaking pages between lines.
// With x and y (points from the page's top-left corner) it is placed on the
// current page, wrapped within `width` or the right margin, and leaves the
// cursor where it was. With `heading` (1-6) it is a heading: H1-H6 in a
// tagged render (levels that skip are tagged by depth, headings.ts), an
// entry of the outline (output.outline), and, flowing, kept on a page with
// room for two lines of text after it, as HTML's headings are.
import * as v from 'valibot';
import { align, color, fontSize, link, points } from '../fields.js';
import { RenderError, withGlyphCheck } from '../errors.js';
import { checkLineHeights } from '../flow.js';
import type { OperationType, RenderContext } from '../context.js';
import { drawLine, drawLines, layoutLines, prepareSpans, type Span } from '../inline.js';

const schema = v.pipe(
  v.strictObject({
    type: v.literal('add_text'),
    text: v.pipe(v.string(), v.maxLength(1_000_000)),
    x: v.optional(points()),
    y: v.optional(points()),
    width: v.optional(v.pipe(points(), v.minValue(1))),
    size: v.optional(fontSize),
    color: v.optional(color),
    align: v.optional(align),
    /** Paragraph direction; auto (default): from the first strong character (UAX #9 P2-P3). */
    direction: v.optional(v.picklist(['ltr', 'rtl', 'auto'])),
    bold: v.optional(v.boolean()),
    italic: v.optional(v.boolean()),
    underline: v.optional(v.boolean()),
    strike: v.optional(v.boolean()),
    link: v.optional(link),
    /** A heading of this level (1 the highest): H1-H6 in a tagged render, an outline entry; it sets no style (give size and bold). */
    heading: v.optional(v.pipe(v.number(), v.integer('must be a whole number from 1 to 6'), v.minValue(1, 'must be from 1 to 6'), v.maxValue(6, 'must be from 1 to 6'))),
    /** Space below the paragraph when flowing; default half the font size. */
    spacing_after: v.optional(points(1_000)),
  }),
  v.forward(
    v.partialCheck([['x'], ['y']], (op) => (op.x === undefined) === (op.y === undefined), 'x and y go together: give both for absolute placement, or neither to flow'),
    ['y'],
  ),
);

export const addText: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const base = context.style;
    const style = {
      ...base,
      size: op.size ?? base.size,
      color: op.color ?? base.color,
      bold: op.bold ?? base.bold,
      italic: op.italic ?? base.italic,
      underline: op.underline ?? false,
      strike: op.strike ?? false,
      link: op.link,
    };
    const spans: Span[] = [{ text: op.text, style }];
    await prepareSpans(spans, context.fonts);
    const { flow } = context;
    // A paragraph (or heading) in a tagged render, on however many pages its lines fall.
    place(op, context, at, spans);
    flow.structure?.close();
    if (op.x === undefined) flow.advance(op.spacing_after ?? style.size * 0.5);
  },
};

/** Lays the paragraph out: placed at x and y on the current page, or flowing from the cursor. */
function place(op: v.InferOutput<typeof schema>, context: RenderContext, at: string, spans: Span[]): void {
  const { flow } = context;
  // Undefined: each line's start side, right for a right-to-left paragraph.
  const alignment = op.align;

  if (op.x !== undefined && op.y !== undefined) {
    const page = flow.page;
    if (op.x >= page.width || op.y >= page.height) {
      throw new RenderError([{ field: `${at}.${op.x >= page.width ? 'x' : 'y'}`, code: 'OUT_OF_RANGE', message: `must lie on the page (${page.width.toFixed(0)} × ${page.height.toFixed(0)} pt)` }]);
    }
    // Up to the right margin, or to the page edge for text placed in the margin itself.
    const toMargin = page.width - flow.margins.right - op.x;
    const toEdge = page.width - op.x;
    if (op.width !== undefined && op.width > toEdge + 0.01) {
      // Its lines would be set (aligned, wrapped) in a box partly off the page, and cut at its edge.
      throw new RenderError([
        { field: `${at}.width`, code: 'OUT_OF_RANGE', message: `runs past the right edge of the page: at most ${+toEdge.toFixed(2)} pt fit from x; give a smaller width, or place the text further left` },
      ]);
    }
    const width = op.width ?? (toMargin >= 1 ? toMargin : toEdge);
    const room = page.height - op.y;
    const lines = withGlyphCheck(`${at}.text`, () => layoutLines(spans, width, context.fonts, room, op.direction));
    if (lines.reduce((sum, line) => sum + line.height, 0) > room + 0.01) {
      // Absolute text is never paginated; losing its last lines silently would be worse than saying so.
      throw new RenderError([
        { field: `${at}.y`, code: 'OUT_OF_RANGE', message: 'the text runs past the bottom of the page; place it higher, give it more width, or let it flow' },
      ]);
    }
    if (lines.some((line) => line.width > toEdge + 0.01)) {
      // A word wider than the room left (text placed a point from the edge) is drawn whole, past it.
      throw new RenderError([{ field: `${at}.x`, code: 'OUT_OF_RANGE', message: 'the text runs past the right edge of the page; place it further left' }]);
    }
    begin(op, context, op.y);
    drawLines(page, lines, op.x, op.y, width, alignment);
    return;
  }

  const width = Math.min(op.width ?? flow.width, flow.width);
  const lines = withGlyphCheck(`${at}.text`, () => layoutLines(spans, width, context.fonts, Number.POSITIVE_INFINITY, op.direction));
  checkLineHeights(lines, flow.contentHeight, at);
  if (op.heading !== undefined) {
    // Keep a heading with two lines of what follows it, unless it could never fit (as HTML's headings, html/layout.ts).
    const height = lines.reduce((sum, line) => sum + line.height, 0) + 2 * context.style.size * context.style.lineHeight;
    if (height <= flow.contentHeight) flow.ensure(height);
  }
  flow.ensure(lines[0]?.height ?? 0);
  begin(op, context, flow.cursor);
  for (const line of lines) {
    flow.ensure(line.height);
    drawLine(flow.page, line, flow.left, flow.cursor, width, alignment);
    flow.advance(line.height);
  }
}

/** Opens the paragraph's element, or records the heading (its level and where its first line is) and opens its H element. */
function begin(op: v.InferOutput<typeof schema>, context: RenderContext, top: number): void {
  const { flow } = context;
  if (op.heading === undefined) {
    flow.structure?.open('P');
    return;
  }
  const level = context.headings.add(op.heading, op.text, flow.page, top);
  flow.structure?.open(`H${level}`);
}
