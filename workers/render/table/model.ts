// The table layer's vocabulary: what callers hand in (TableInput), the
// bounds every table is held to, and the shapes the layout passes between
// its steps (measure, widths, pagination, painting).
import type { Rgb } from '../canvas.js';
import type { Direction } from '../bidi.js';
import type { Line, Span, TextAlign } from '../inline.js';

export type ColumnWidth = { readonly kind: 'fixed'; readonly points: number } | { readonly kind: 'fraction'; readonly weight: number } | { readonly kind: 'auto' };

export interface TableCell {
  readonly spans: readonly Span[];
  readonly colspan: number;
  /** Undefined: the start side of the cell's text (right for a right-to-left cell). */
  readonly align: TextAlign | undefined;
  /** The cell's paragraph direction; undefined or auto: from its first strong character. */
  readonly direction?: Direction;
  readonly fill?: Rgb;
  /** A header cell in a body row (HTML <th>): a row header in a tagged render. */
  readonly header?: boolean;
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
  /** Columns run right to left, the first at the right: a right-to-left HTML table, as browsers draw it. */
  readonly mirrored?: boolean;
}

/** Where the table goes across the flow: `left` points into the content box (default 0), `width` at most what is left of it (the default). */
export interface TableBox {
  readonly left?: number;
  readonly width?: number;
}

/** Names a cell's field for errors (characters no font has); add_table gives JSON paths, HTML its own. */
export type CellField = (part: 'header' | 'rows', row: number, cell: number) => string;

/** Field paths for errors; each defaults to the table's own field. */
export interface TableFields {
  readonly cell?: CellField;
  /** Named when padding and border alone are taller than a page. */
  readonly padding?: string;
}

/**
 * Columns of one table. Every row is completed to the column count with
 * empty cells, so the count multiplies the work of every row: HTML's own
 * clamp (colspan up to 1000) let a 4 KB body ask for 200,000 columns.
 */
export const MAX_COLUMNS = 100;
/**
 * Characters of text over all cells of one table, repeats included: a
 * table's layout work grows with its text, and 2,000,000 characters is
 * several hundred pages of a dense table.
 */
export const MAX_TABLE_TEXT = 2_000_000;

/** Layout width slack, so a column sized exactly to its text never wraps it over rounding in the sums. */
export const SLACK = 0.01;
export const EPSILON = 1e-6;

/** A text's widest word (min-content) and widest line (max-content), and the layouts worth keeping. */
export interface Measured {
  readonly min: number;
  readonly max: number;
  /** The layout at unbounded width; undefined once the table's cache budget is spent (it is made again where drawn). */
  readonly lines: readonly Line[] | undefined;
  /** The last narrower layout and its width: a repeated text usually sits in the same column. */
  wrapWidth: number;
  wrapped: readonly Line[] | undefined;
}

export interface Placed {
  readonly cell: TableCell;
  readonly col: number;
  readonly span: number;
  readonly measured: Measured;
  /** Laid out when the row is reached, released once it is drawn. */
  lines: readonly Line[];
}

export interface Row {
  readonly cells: Placed[];
  readonly fill: Rgb | undefined;
  /** NaN until the row is laid out. */
  height: number;
}

export interface Grid {
  readonly left: number;
  readonly width: number;
  /** x of each grid line, n + 1 of them, in column order; mirrored about the table's middle when `mirrored` (gridX). */
  readonly xs: Float64Array;
  readonly mirrored: boolean;
  readonly inset: number;
  readonly borderWidth: number;
  readonly borderColor: Rgb;
}

/** Where grid line `g` is drawn: at xs[g], or mirrored, so that column 0 is at the right. */
export function gridX(grid: Grid, g: number): number {
  const xs = grid.xs;
  return grid.mirrored ? (xs[0] as number) + (xs[xs.length - 1] as number) - (xs[g] as number) : (xs[g] as number);
}

/**
 * Height of a band of a row: the tallest run of lines from..to over its
 * cells (from the first line, to the last, when undefined), plus the padding
 * and border above and below.
 */
export function bandHeight(row: Row, from: readonly number[] | undefined, to: readonly number[] | undefined, inset: number): number {
  let tallest = 0;
  for (let i = 0; i < row.cells.length; i++) {
    const lines = (row.cells[i] as Placed).lines;
    const end = to?.[i] ?? lines.length;
    let height = 0;
    for (let k = from?.[i] ?? 0; k < end; k++) height += (lines[k] as Line).height;
    if (height > tallest) tallest = height;
  }
  return tallest + 2 * inset;
}
