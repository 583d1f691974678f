// Cells into rows of measured cells, and a row's lines once the column
// widths are known.
//
// Speed: every distinct (style, text) is prepared and measured once, by one
// layout at unbounded width; that layout is reused as the cell's lines
// whenever the text fits its column, which in a typical invoice is every
// cell. Memory: those layouts are kept only up to KEEP_CHARS characters of
// text; past that a cell keeps its min- and max-content widths alone and is
// laid out again when its row is drawn. Rows are laid out one at a time and
// released once drawn, so a big table never holds every wrapped line at
// once: 30 rows of five 2,000-word cells in 50 pt columns (1,060 pages)
// needed more than 256 MB of heap when every row was laid out up front, and
// renders in 96 MB this way.
import type { Rgb } from '../canvas.js';
import { withGlyphCheck } from '../errors.js';
import { checkLineHeights } from '../flow.js';
import type { Direction } from '../bidi.js';
import type { FontBook } from '../fonts.js';
import { layoutLines, prepareSpans, type Line, type Span, type TextStyle } from '../inline.js';
import { bandHeight, SLACK, type CellField, type Grid, type Measured, type Placed, type Row, type TableCell } from './model.js';

const NO_SPANS: readonly Span[] = Object.freeze([]);
const NO_LINES: readonly Line[] = Object.freeze([]);
const EMPTY_CELL: TableCell = Object.freeze({ spans: NO_SPANS, colspan: 1, align: undefined });
/**
 * Characters whose layouts a table keeps from measuring to drawing: more
 * than the 10-page invoice's distinct texts (about 6,000), and at about
 * 100 bytes a character (two layouts and their text operations) a few MB.
 */
const KEEP_CHARS = 50_000;

/** Measures the cells of one table, each distinct single-span text once. */
export class Measurer {
  /** Keyed by style object, which callers share between cells. */
  readonly #cache = new Map<TextStyle, Map<string, Measured>>();
  readonly #empty: Measured;
  #kept = 0;

  constructor(
    private readonly fonts: FontBook,
    private readonly cellField: CellField,
    /** The tallest line a cell may hold: a page's content height less the cell's padding and border. */
    private readonly lineRoom: number,
  ) {
    this.#empty = measured(layoutLines(NO_SPANS, Number.POSITIVE_INFINITY, fonts), true);
  }

  /** The rows of a table part, each completed to `count` columns: spans are clamped and cells past the last column dropped (HTML tables may be ragged; add_table rejects both). */
  async rows(part: 'header' | 'rows', source: readonly (readonly TableCell[])[], count: number, fill: (index: number) => Rgb | undefined): Promise<Row[]> {
    const rows: Row[] = [];
    for (let r = 0; r < source.length; r++) {
      const cells: Placed[] = [];
      let col = 0;
      const row = source[r] as readonly TableCell[];
      for (let c = 0; c < row.length && col < count; c++) {
        const cell = row[c] as TableCell;
        const span = Math.min(Math.max(1, Math.floor(cell.colspan)), count - col);
        // A repeat costs two map lookups; only a first sighting is prepared (fonts load asynchronously) and laid out.
        const measured = this.#cached(cell) ?? (await this.#measure(cell, part, r, c));
        cells.push({ cell, col, span, measured, lines: NO_LINES });
        col += span;
      }
      // A short row is completed with empty cells, so the grid stays whole.
      for (; col < count; col++) cells.push({ cell: EMPTY_CELL, col, span: 1, measured: this.#empty, lines: NO_LINES });
      rows.push({ cells, fill: fill(r), height: Number.NaN });
    }
    return rows;
  }

  /** A cell with a set direction is measured apart: the cache is keyed by style and text only. */
  #cached({ spans, direction }: TableCell): Measured | undefined {
    if (spans.length === 0) return this.#empty;
    return spans.length === 1 && isAuto(direction) ? this.#cache.get((spans[0] as Span).style)?.get((spans[0] as Span).text) : undefined;
  }

  async #measure({ spans, direction }: TableCell, part: 'header' | 'rows', row: number, cell: number): Promise<Measured> {
    await prepareSpans(spans, this.fonts);
    const field = this.cellField(part, row, cell);
    const lines = withGlyphCheck(field, () => layoutLines(spans, Number.POSITIVE_INFINITY, this.fonts, Number.POSITIVE_INFINITY, direction));
    // Wrapped at its column's width a cell's lines are no taller: each line is as tall as its tallest piece.
    checkLineHeights(lines, this.lineRoom, field);
    let chars = 0;
    for (const span of spans) chars += span.text.length;
    const keep = this.#kept + chars <= KEEP_CHARS;
    if (keep) this.#kept += chars;
    const result = measured(lines, keep);
    if (spans.length === 1 && isAuto(direction)) {
      const { style, text } = spans[0] as Span;
      let byText = this.#cache.get(style);
      if (byText === undefined) this.#cache.set(style, (byText = new Map()));
      byText.set(text, result);
    }
    return result;
  }
}

/** Lays the row's cells out at their columns' widths and sets its height. */
export function layRow(row: Row, grid: Grid, fonts: FontBook): void {
  const { xs, inset } = grid;
  for (const placed of row.cells) {
    const content = Math.max(1, (xs[placed.col + placed.span] as number) - (xs[placed.col] as number) - 2 * inset);
    placed.lines = linesAt(placed, content, fonts);
  }
  row.height = bandHeight(row, undefined, undefined, inset);
}

/** Lets the row's lines go (a drawn row is not drawn again). */
export function releaseRow(row: Row): void {
  for (const placed of row.cells) placed.lines = NO_LINES;
}

function linesAt(placed: Placed, content: number, fonts: FontBook): readonly Line[] {
  const measured = placed.measured;
  if (measured.lines !== undefined && measured.max <= content + SLACK) return measured.lines;
  if (measured.wrapped !== undefined && measured.wrapWidth === content) return measured.wrapped;
  const lines = layoutLines(placed.cell.spans, content + SLACK, fonts, Number.POSITIVE_INFINITY, placed.cell.direction);
  // A text whose layout is kept keeps its last wrap too; any other is laid out wherever it is drawn.
  if (measured.lines !== undefined) {
    measured.wrapped = lines;
    measured.wrapWidth = content;
  }
  return lines;
}

const isAuto = (direction: Direction | undefined): boolean => direction === undefined || direction === 'auto';

/** Columns the widest row spans. */
export function spanCount(rows: readonly (readonly TableCell[])[]): number {
  let most = 0;
  for (const row of rows) {
    let count = 0;
    for (const cell of row) count += Math.max(1, Math.floor(cell.colspan));
    most = Math.max(most, count);
  }
  return most;
}

/** Characters of text in the rows, counted until they pass `limit`. */
export function textLength(rows: readonly (readonly TableCell[])[], limit: number): number {
  let chars = 0;
  for (const row of rows) {
    for (const cell of row) for (const span of cell.spans) chars += span.text.length;
    if (chars > limit) break;
  }
  return chars;
}

function measured(lines: Line[], keep: boolean): Measured {
  let min = 0;
  let max = 0;
  for (const line of lines) {
    max = Math.max(max, line.width);
    for (const unit of line.units) min = Math.max(min, unit.width);
  }
  return { min, max, lines: keep ? lines : undefined, wrapWidth: Number.NaN, wrapped: undefined };
}
