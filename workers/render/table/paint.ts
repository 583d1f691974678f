// Painting: a table's fills, its cells' lines of text and its rules, one
// row band at a time.
import type { PageCanvas } from '../canvas.js';
import type { Line } from '../inline.js';
import { gridX, type Grid, type Placed, type Row } from './model.js';
import { drawCellLine } from './text-ops.js';
import type { TableTags } from '../tagging/table.js';

/**
 * Draws row bands (a row, or the part of a split row on one page) page by
 * page. Each grid line's vertical border is one stroke over all the
 * consecutive rows that have an edge there, and a zebra or header fill is
 * one rectangle per band: per-cell strokes and fills were most of the
 * content stream (and of the time spent compressing it).
 */
export class BandPainter {
  #page: PageCanvas | undefined;
  /** Where each grid line's open vertical border started; NaN when none is open. */
  readonly #open: Float64Array;
  readonly #edges: Uint8Array;
  #bottom = 0;

  constructor(
    private readonly grid: Grid,
    /** The table's structure elements in a tagged render. */
    private readonly tags?: TableTags,
  ) {
    this.#open = new Float64Array(grid.xs.length).fill(Number.NaN);
    this.#edges = new Uint8Array(grid.xs.length);
  }

  /**
   * Lines from..to of each cell of a row (all of them when undefined) in a band of `height` from `top`.
   * `repeated`: a header row drawn again at the top of a later page.
   */
  band(page: PageCanvas, row: Row, top: number, height: number, from: readonly number[] | undefined, to: readonly number[] | undefined, repeated = false): void {
    const { xs, inset, borderWidth: b, borderColor } = this.grid;
    const last = xs.length - 1;
    if (page !== this.#page) {
      this.finish();
      this.#page = page;
    }
    if (row.fill !== undefined) page.fillRect(xs[0] as number, top, (xs[last] as number) - (xs[0] as number), height, row.fill);
    for (let i = 0; i < row.cells.length; i++) {
      const placed = row.cells[i] as Placed;
      // A mirrored grid's cell runs from its end grid line to its start one.
      const startLine = gridX(this.grid, placed.col);
      const endLine = gridX(this.grid, placed.col + placed.span);
      const x0 = Math.min(startLine, endLine);
      const x1 = Math.max(startLine, endLine);
      if (placed.cell.fill !== undefined) page.fillRect(x0, top, x1 - x0, height, placed.cell.fill);
      const end = to?.[i] ?? placed.lines.length;
      const start = from?.[i] ?? 0;
      const tags = start < end ? this.tags : undefined;
      tags?.enterCell(row, i, repeated);
      let y = top + inset;
      for (let k = start; k < end; k++) {
        const line = placed.lines[k] as Line;
        drawCellLine(page, line, x0 + inset, y, x1 - x0 - 2 * inset, placed.cell.align);
        y += line.height;
      }
      tags?.leave();
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
        page.line(gridX(this.grid, g), open, gridX(this.grid, g), top, borderColor, b);
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
      page.line(gridX(this.grid, g), open, gridX(this.grid, g), this.#bottom, borderColor, b);
      this.#open[g] = Number.NaN;
    }
  }
}

