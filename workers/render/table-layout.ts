// Tables in the flow, shared by add_table and HTML tables: column widths,
// row heights, and pagination with the header rows repeated on every page.
//
// The model is CSS's collapsed-border table: cells abut, each border is one
// line centred on a grid line, and a column's width runs from grid line to
// grid line (padding and half of each border inside it). Auto columns size
// from their content the way CSS 2.1 section 17.5.2.2 recommends: never
// below the longest unbreakable word (min-content) while the width allows,
// and up to the unwrapped text (max-content).
//
// Speed: every distinct (style, text) is prepared and measured once, by one
// layout at unbounded width; that layout is reused as the cell's lines
// whenever the text fits its column, which in a typical invoice is every
// cell. Only what the page shows reaches the canvas: fills, lines of text,
// and one stroke per grid line segment.
import type { PageCanvas, Rgb } from './canvas.js';
import { withGlyphCheck, type RenderContext } from './common.js';
import type { Run } from './fonts.js';
import { drawLine, layoutLines, prepareSpans, type Align, type Line, type Span, type TextStyle } from './inline.js';

export type ColumnWidth = { readonly kind: 'fixed'; readonly points: number } | { readonly kind: 'fraction'; readonly weight: number } | { readonly kind: 'auto' };

export interface TableCell {
  readonly spans: readonly Span[];
  readonly colspan: number;
  readonly align: Align;
  readonly fill?: Rgb;
}

export interface TableInput {
  /** May be empty: then every column is auto and the count comes from the rows. */
  readonly columns: readonly ColumnWidth[];
  /** Repeated on every page. */
  readonly header: readonly (readonly TableCell[])[];
  readonly rows: readonly (readonly TableCell[])[];
  readonly padding: number;
  readonly borderWidth: number;
  readonly borderColor: Rgb;
  readonly headerFill?: Rgb;
  readonly zebraFill?: Rgb;
}

/** Names a cell's field for errors (characters no font has); add_table gives JSON paths, HTML its own. */
export type CellField = (part: 'header' | 'rows', row: number, cell: number) => string;

const AUTO: ColumnWidth = Object.freeze({ kind: 'auto' });
const NO_SPANS: readonly Span[] = Object.freeze([]);
/** Layout width slack, so a column sized exactly to its text never wraps it over rounding in the sums. */
const SLACK = 0.01;
const EPSILON = 1e-6;
/** A header taller than this share of the page is drawn once, as leading rows, instead of on every page. */
const HEADER_SHARE = 0.5;

/** A text laid out at unbounded width: its lines, widest word (min-content) and widest line (max-content). */
interface Measured {
  readonly lines: Line[];
  readonly min: number;
  readonly max: number;
  /** The last narrower layout and its width: a repeated text usually sits in the same column. */
  wrapWidth: number;
  wrapped: readonly Line[];
}

interface Placed {
  readonly cell: TableCell;
  readonly col: number;
  readonly span: number;
  readonly measured: Measured;
  lines: readonly Line[];
}

interface Row {
  readonly cells: Placed[];
  readonly fill: Rgb | undefined;
  height: number;
}

interface Grid {
  readonly left: number;
  readonly width: number;
  /** x of each grid line, n + 1 of them. */
  readonly xs: Float64Array;
  readonly inset: number;
  readonly borderWidth: number;
  readonly borderColor: Rgb;
}

/** Lays the table out in the flow (at flow.left, width flow.width unless `width` given), from the cursor. `at` is the field path for errors. */
export async function drawTable(context: RenderContext, table: TableInput, at: string, width?: number, cellField: CellField = () => at): Promise<void> {
  const { flow, fonts } = context;
  const count = table.columns.length > 0 ? table.columns.length : Math.max(spanCount(table.header), spanCount(table.rows));
  if (count === 0) return;
  const b = table.borderWidth;
  const inset = table.padding + b / 2;

  const empty = measureLines(layoutLines(NO_SPANS, Number.POSITIVE_INFINITY, fonts));
  // Measure every distinct text once; the cache is keyed by style object, which callers share between cells.
  const cache = new Map<TextStyle, Map<string, Measured>>();
  const cached = (spans: readonly Span[]): Measured | undefined => {
    if (spans.length === 0) return empty;
    return spans.length === 1 ? cache.get((spans[0] as Span).style)?.get((spans[0] as Span).text) : undefined;
  };
  // Only a first sighting is prepared (fonts load asynchronously) and laid out; a repeat costs two map lookups.
  const measure = async (spans: readonly Span[], part: 'header' | 'rows', row: number, cell: number): Promise<Measured> => {
    await prepareSpans(spans, fonts);
    const measured = withGlyphCheck(cellField(part, row, cell), () => measureLines(layoutLines(spans, Number.POSITIVE_INFINITY, fonts)));
    if (spans.length === 1) {
      const { style, text } = spans[0] as Span;
      let byText = cache.get(style);
      if (byText === undefined) cache.set(style, (byText = new Map()));
      byText.set(text, measured);
    }
    return measured;
  };

  const place = async (part: 'header' | 'rows', source: readonly (readonly TableCell[])[], fill: (index: number) => Rgb | undefined): Promise<Row[]> => {
    const rows: Row[] = [];
    for (let r = 0; r < source.length; r++) {
      const cells: Placed[] = [];
      let col = 0;
      const row = source[r] as readonly TableCell[];
      // Cells past the last column are dropped and spans clamped (HTML tables may be ragged; add_table rejects both).
      for (let c = 0; c < row.length && col < count; c++) {
        const cell = row[c] as TableCell;
        const span = Math.min(Math.max(1, Math.floor(cell.colspan)), count - col);
        cells.push({ cell, col, span, measured: cached(cell.spans) ?? (await measure(cell.spans, part, r, c)), lines: [] });
        col += span;
      }
      // A short row is completed with empty cells, so the grid stays whole.
      for (; col < count; col++) cells.push({ cell: { spans: NO_SPANS, colspan: 1, align: 'left' }, col, span: 1, measured: empty, lines: [] });
      rows.push({ cells, fill: fill(r), height: 0 });
    }
    return rows;
  };
  let header = await place('header', table.header, () => table.headerFill);
  let body = await place('rows', table.rows, (index) => (index % 2 === 1 ? table.zebraFill : undefined));

  const tableWidth = Math.max(1, Math.min(width ?? flow.width, flow.width));
  const widths = resolveColumnWidths(table.columns, count, tableWidth - b, header.concat(body), inset);
  const xs = new Float64Array(count + 1);
  xs[0] = flow.left + b / 2;
  for (let i = 0; i < count; i++) xs[i + 1] = (xs[i] as number) + (widths[i] as number);
  const grid: Grid = { left: flow.left, width: (xs[count] as number) - flow.left + b / 2, xs, inset, borderWidth: b, borderColor: table.borderColor };

  for (const rows of [header, body]) {
    for (const row of rows) {
      let tallest = 0;
      for (const placed of row.cells) {
        const content = Math.max(1, (xs[placed.col + placed.span] as number) - (xs[placed.col] as number) - 2 * inset);
        const measured = placed.measured;
        if (measured.max <= content + SLACK) placed.lines = measured.lines;
        else {
          if (measured.wrapWidth !== content) {
            measured.wrapped = layoutLines(placed.cell.spans, content + SLACK, fonts);
            measured.wrapWidth = content;
          }
          placed.lines = measured.wrapped;
        }
        tallest = Math.max(tallest, sumHeights(placed.lines, 0, placed.lines.length));
      }
      row.height = tallest + 2 * inset;
    }
  }

  const pageRoom = () => flow.page.height - flow.margins.top - flow.margins.bottom;
  let headerHeight = header.reduce((sum, row) => sum + row.height, 0);
  if (headerHeight > pageRoom() * HEADER_SHARE) {
    body = header.concat(body);
    header = [];
    headerHeight = 0;
  }

  // Start where the header and the first row (or its first lines, if it is taller than a page) fit.
  const first = body[0];
  const firstNeed = first === undefined ? 0 : first.height <= pageRoom() - headerHeight ? first.height : firstLinesHeight(first, inset);
  flow.ensure(headerHeight + firstNeed);
  let freshPage = flow.atTop;
  let rowsOnPage = 0;
  const painter = new BandPainter(grid);
  const startPage = (newPage: boolean) => {
    if (newPage) {
      flow.newPage();
      freshPage = true;
    }
    rowsOnPage = 0;
    for (const row of header) {
      painter.band(flow.page, row, flow.cursor, row.height, undefined, undefined);
      flow.advance(row.height);
    }
  };
  startPage(false);

  for (const row of body) {
    let from: number[] | undefined;
    for (;;) {
      const room = flow.room;
      const rest = from === undefined ? row.height : remainingHeight(row, from, inset);
      if (rest <= room + EPSILON) {
        painter.band(flow.page, row, flow.cursor, rest, from, undefined);
        flow.advance(rest);
        rowsOnPage++;
        break;
      }
      // A row that fits on a page of its own moves there whole; only a taller one is split.
      if (from === undefined && !(freshPage && rowsOnPage === 0) && row.height <= pageRoom() - headerHeight + EPSILON) {
        startPage(true);
        continue;
      }
      let cut = fitLines(row, from, room - 2 * inset);
      if (cut === undefined) {
        if (!(freshPage && rowsOnPage === 0)) {
          startPage(true);
          continue;
        }
        // Not even one line fits on an empty page: draw one line per cell regardless, so the table always advances.
        cut = row.cells.map((placed, i) => Math.min(placed.lines.length, (from?.[i] ?? 0) + 1));
      }
      const height = segmentHeight(row, from, cut, inset);
      painter.band(flow.page, row, flow.cursor, height, from, cut);
      flow.advance(height);
      from = cut;
      startPage(true);
    }
  }
  painter.finish();
}

/**
 * Column widths (grid line to grid line) summing to at most `available`.
 * Fixed columns get their points; auto columns their max-content if it
 * fits, else a share between min- and max-content; fraction columns split
 * what is left by weight, each kept at its min-content where possible. When
 * even the minimums do not fit, everything shrinks in proportion (long
 * words are then broken between characters).
 */
function resolveColumnWidths(columns: readonly ColumnWidth[], count: number, available: number, rows: readonly Row[], inset: number): number[] {
  const kinds: ColumnWidth[] = [];
  for (let i = 0; i < count; i++) kinds.push(columns[i] ?? AUTO);
  const min = new Float64Array(count).fill(2 * inset);
  const max = new Float64Array(count).fill(2 * inset);
  const spanning: Placed[] = [];
  for (const row of rows) {
    for (const placed of row.cells) {
      if (placed.span > 1) {
        spanning.push(placed);
        continue;
      }
      min[placed.col] = Math.max(min[placed.col] as number, placed.measured.min + 2 * inset);
      max[placed.col] = Math.max(max[placed.col] as number, placed.measured.max + 2 * inset);
    }
  }
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') min[i] = max[i] = kind.points;
  }
  // Spanning cells, narrowest span first, widen the flexible columns they cover by what they lack.
  spanning.sort((a, b) => a.span - b.span);
  for (const placed of spanning) {
    widenForSpan(min, max, kinds, placed, placed.measured.min + 2 * inset);
    widenForSpan(max, max, kinds, placed, placed.measured.max + 2 * inset);
  }

  const widths = new Array<number>(count).fill(0);
  let fixed = 0;
  let autoMin = 0;
  let autoMax = 0;
  let fractionMin = 0;
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') fixed += kind.points;
    else if (kind.kind === 'auto') {
      autoMin += min[i] as number;
      autoMax += Math.max(min[i] as number, max[i] as number);
    } else fractionMin += min[i] as number;
  }
  const floor = fixed + autoMin + fractionMin;
  if (floor >= available) {
    const scale = floor > 0 ? available / floor : 0;
    for (let i = 0; i < count; i++) widths[i] = (min[i] as number) * scale;
    return widths;
  }

  // Auto columns: max-content when it fits beside the fraction minimums, else interpolated (CSS 2.1 17.5.2.2).
  const forAuto = available - fixed - fractionMin;
  const grow = autoMax <= forAuto ? 1 : autoMax > autoMin ? (forAuto - autoMin) / (autoMax - autoMin) : 0;
  let used = fixed;
  const flexible: number[] = [];
  const fractions: number[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') widths[i] = kind.points;
    else if (kind.kind === 'auto') {
      const lo = min[i] as number;
      widths[i] = lo + (Math.max(lo, max[i] as number) - lo) * grow;
      used += widths[i] as number;
      flexible.push(i);
    } else fractions.push(i);
  }
  let left = available - used;
  if (fractions.length > 0) {
    // Weights share what is left; a column whose share is below its minimum is held there and the rest re-shared.
    let pool = fractions;
    for (;;) {
      const weights = pool.reduce((sum, i) => sum + (kinds[i] as { weight: number }).weight, 0);
      const unit = left / weights;
      const held = pool.filter((i) => (kinds[i] as { weight: number }).weight * unit < (min[i] as number));
      if (held.length === 0) {
        for (const i of pool) widths[i] = (kinds[i] as { weight: number }).weight * unit;
        break;
      }
      for (const i of held) {
        widths[i] = min[i] as number;
        left -= min[i] as number;
      }
      pool = pool.filter((i) => !held.includes(i));
    }
  } else if (flexible.length > 0 && left > 0) {
    // No fractions: auto columns fill the width, in proportion to their content as CSS does for width: 100%.
    const total = flexible.reduce((sum, i) => sum + (widths[i] as number), 0);
    for (const i of flexible) widths[i] = (widths[i] as number) + (total > 0 ? (left * (widths[i] as number)) / total : left / flexible.length);
  }
  return widths;
}

function widenForSpan(target: Float64Array, weights: Float64Array, kinds: readonly ColumnWidth[], placed: Placed, need: number): void {
  let have = 0;
  let weight = 0;
  let flexible = 0;
  for (let i = placed.col; i < placed.col + placed.span; i++) {
    have += target[i] as number;
    if ((kinds[i] as ColumnWidth).kind !== 'fixed') {
      weight += weights[i] as number;
      flexible++;
    }
  }
  if (need <= have || flexible === 0) return;
  for (let i = placed.col; i < placed.col + placed.span; i++) {
    if ((kinds[i] as ColumnWidth).kind === 'fixed') continue;
    target[i] = (target[i] as number) + (need - have) * (weight > 0 ? (weights[i] as number) / weight : 1 / flexible);
  }
}

function spanCount(rows: readonly (readonly TableCell[])[]): number {
  let most = 0;
  for (const row of rows) {
    let count = 0;
    for (const cell of row) count += Math.max(1, Math.floor(cell.colspan));
    most = Math.max(most, count);
  }
  return most;
}

function measureLines(lines: Line[]): Measured {
  let min = 0;
  let max = 0;
  for (const line of lines) {
    max = Math.max(max, line.width);
    for (const unit of line.units) min = Math.max(min, unit.width);
  }
  return { lines, min, max, wrapWidth: Number.NaN, wrapped: lines };
}

function sumHeights(lines: readonly Line[], from: number, to: number): number {
  let height = 0;
  for (let k = from; k < to; k++) height += (lines[k] as Line).height;
  return height;
}

function firstLinesHeight(row: Row, inset: number): number {
  let tallest = 0;
  for (const placed of row.cells) tallest = Math.max(tallest, placed.lines[0]?.height ?? 0);
  return tallest + 2 * inset;
}

function remainingHeight(row: Row, from: readonly number[], inset: number): number {
  let tallest = 0;
  row.cells.forEach((placed, i) => {
    tallest = Math.max(tallest, sumHeights(placed.lines, from[i] as number, placed.lines.length));
  });
  return tallest + 2 * inset;
}

/** How far each cell's lines go within `room` of text height; undefined when no cell can place a line. */
function fitLines(row: Row, from: readonly number[] | undefined, room: number): number[] | undefined {
  let progress = false;
  const cut = row.cells.map((placed, i) => {
    let k = from?.[i] ?? 0;
    let height = 0;
    while (k < placed.lines.length && height + (placed.lines[k] as Line).height <= room + EPSILON) {
      height += (placed.lines[k] as Line).height;
      k++;
    }
    if (k > (from?.[i] ?? 0)) progress = true;
    return k;
  });
  return progress ? cut : undefined;
}

function segmentHeight(row: Row, from: readonly number[] | undefined, to: readonly number[], inset: number): number {
  let tallest = 0;
  row.cells.forEach((placed, i) => {
    tallest = Math.max(tallest, sumHeights(placed.lines, from?.[i] ?? 0, to[i] as number));
  });
  return tallest + 2 * inset;
}

/**
 * Draws row bands (a row, or the part of a split row on one page) page by
 * page. Each grid line's vertical border is one stroke over all the
 * consecutive rows that have an edge there, and a zebra or header fill is
 * one rectangle per band: per-cell strokes and fills were most of the
 * content stream (and of the time spent compressing it).
 */
class BandPainter {
  #page: PageCanvas | undefined;
  /** Where each grid line's open vertical border started; NaN when none is open. */
  readonly #open: Float64Array;
  readonly #edges: Uint8Array;
  #bottom = 0;

  constructor(private readonly grid: Grid) {
    this.#open = new Float64Array(grid.xs.length).fill(Number.NaN);
    this.#edges = new Uint8Array(grid.xs.length);
  }

  /** Lines from..to of each cell of a row (all of them when undefined) in a band of `height` from `top`. */
  band(page: PageCanvas, row: Row, top: number, height: number, from: readonly number[] | undefined, to: readonly number[] | undefined): void {
    const { xs, inset, borderWidth: b, borderColor } = this.grid;
    const last = xs.length - 1;
    if (page !== this.#page) {
      this.finish();
      this.#page = page;
    }
    if (row.fill !== undefined) page.fillRect(xs[0] as number, top, (xs[last] as number) - (xs[0] as number), height, row.fill);
    for (let i = 0; i < row.cells.length; i++) {
      const placed = row.cells[i] as Placed;
      const x0 = xs[placed.col] as number;
      const x1 = xs[placed.col + placed.span] as number;
      if (placed.cell.fill !== undefined) page.fillRect(x0, top, x1 - x0, height, placed.cell.fill);
      const end = to?.[i] ?? placed.lines.length;
      let y = top + inset;
      for (let k = from?.[i] ?? 0; k < end; k++) {
        const line = placed.lines[k] as Line;
        drawCellLine(page, line, x0 + inset, y, x1 - x0 - 2 * inset, placed.cell.align);
        y += line.height;
      }
    }
    if (b <= 0) return;
    // Rules go down after the fills on both sides of them (a fill drawn later would hide half a rule): each
    // band draws its top rule, and finish() the bottom one. They run a half border past the outer grid
    // lines, so the corners close.
    page.line(this.grid.left, top, this.grid.left + this.grid.width, top, borderColor, b);
    const edges = this.#edges;
    edges.fill(0);
    for (const placed of row.cells) edges[placed.col] = 1;
    edges[last] = 1;
    for (let g = 0; g <= last; g++) {
      const open = this.#open[g] as number;
      if (edges[g] === 1) {
        if (Number.isNaN(open)) this.#open[g] = top;
      } else if (!Number.isNaN(open)) {
        page.line(xs[g] as number, open, xs[g] as number, top, borderColor, b);
        this.#open[g] = Number.NaN;
      }
    }
    this.#bottom = top + height;
  }

  /** Strokes the bottom rule and the vertical borders still open on the current page. */
  finish(): void {
    const page = this.#page;
    const { xs, borderWidth: b, borderColor } = this.grid;
    if (page === undefined || b <= 0) return;
    page.line(this.grid.left, this.#bottom, this.grid.left + this.grid.width, this.#bottom, borderColor, b);
    for (let g = 0; g < xs.length; g++) {
      const open = this.#open[g] as number;
      if (Number.isNaN(open)) continue;
      page.line(xs[g] as number, open, xs[g] as number, this.#bottom, borderColor, b);
      this.#open[g] = Number.NaN;
    }
  }
}

/** One text operation of a line: runs drawn from `dx` after the line's start. */
interface TextOp {
  readonly dx: number;
  readonly runs: Run[];
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
function drawCellLine(page: PageCanvas, line: Line, left: number, top: number, width: number, align: Align): void {
  if (align === 'justify' && !line.last && line.units.length > 1) {
    drawLine(page, line, left, top, width, align);
    return;
  }
  let plan = plans.get(line);
  if (plan === undefined) plans.set(line, (plan = planLine(line)));
  const slack = Math.max(0, width - line.width);
  const x = align === 'center' ? left + slack / 2 : align === 'right' ? left + slack : left;
  const baseline = top + line.baseline;
  for (const op of plan) {
    page.text(op.runs, x + op.dx, baseline, op.style.size, op.style.color, op.style);
    if (op.style.link !== undefined) page.link(x + op.dx, top, op.width, line.height, op.style.link);
  }
}

function planLine(line: Line): TextOp[] {
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
