// The row loop: rows down the flow from the cursor, the header rows repeated
// at the top of every page, a row that does not fit below the cursor moved
// to the next page whole, and only a row taller than a page split between
// its lines. Each body row is laid out when it is reached and let go once
// drawn.
import type { Flow } from '../flow.js';
import type { FontBook } from '../fonts.js';
import type { Line } from '../inline.js';
import { layRow, releaseRow } from './measure.js';
import { bandHeight, EPSILON, type Grid, type Row } from './model.js';
import { BandPainter } from './paint.js';
import { TableTags } from '../tagging/table.js';

/** A header taller than this share of the page is drawn once, as leading rows, instead of on every page. */
const HEADER_SHARE = 0.5;

/** Draws the rows from the cursor. Header rows come laid out; body rows are laid out here. */
export function paginate(flow: Flow, fonts: FontBook, header: readonly Row[], body: readonly Row[], grid: Grid): void {
  // Made before the header can join the body below: those rows are still header cells.
  const tags = flow.structure === undefined ? undefined : new TableTags(flow.structure, new Set(header), body);
  const { inset } = grid;
  const pageRoom = () => flow.contentHeight;
  let headerHeight = header.reduce((sum, row) => sum + row.height, 0);
  if (headerHeight > pageRoom() * HEADER_SHARE) {
    body = header.concat(body);
    header = [];
    headerHeight = 0;
  }
  const ready = (row: Row) => {
    if (Number.isNaN(row.height)) layRow(row, grid, fonts);
  };

  // Start where the header and the first row (or its first lines, if it is taller than a page) fit.
  const first = body[0];
  let firstNeed = 0;
  if (first !== undefined) {
    ready(first);
    firstNeed = first.height <= pageRoom() - headerHeight ? first.height : bandHeight(first, undefined, first.cells.map((placed) => Math.min(1, placed.lines.length)), inset);
  }
  flow.ensure(headerHeight + firstNeed);
  let freshPage = flow.atTop;
  let rowsOnPage = 0;
  const painter = new BandPainter(grid, tags);
  const startPage = (newPage: boolean) => {
    if (newPage) {
      flow.newPage();
      freshPage = true;
    }
    rowsOnPage = 0;
    for (const row of header) {
      painter.band(flow.page, row, flow.cursor, row.height, undefined, undefined, newPage);
      flow.advance(row.height);
    }
  };
  startPage(false);

  for (const row of body) {
    ready(row);
    let from: number[] | undefined;
    for (;;) {
      const rest = from === undefined ? row.height : bandHeight(row, from, undefined, inset);
      if (rest <= flow.room + EPSILON) {
        painter.band(flow.page, row, flow.cursor, rest, from, undefined);
        flow.advance(rest);
        rowsOnPage++;
        break;
      }
      const pageEmpty = freshPage && rowsOnPage === 0;
      // A row that fits on a page of its own moves there whole; only a taller one is split.
      if (from === undefined && !pageEmpty && row.height <= pageRoom() - headerHeight + EPSILON) {
        startPage(true);
        continue;
      }
      let cut = fitLines(row, from, flow.room - 2 * inset);
      if (cut === undefined) {
        if (!pageEmpty) {
          startPage(true);
          continue;
        }
        // Not even one line fits on an empty page: draw one line per cell regardless, so the table always advances.
        cut = row.cells.map((placed, i) => Math.min(placed.lines.length, (from?.[i] ?? 0) + 1));
      }
      const height = bandHeight(row, from, cut, inset);
      painter.band(flow.page, row, flow.cursor, height, from, cut);
      flow.advance(height);
      // Every line drawn: the row ends on this page (a line taller than the page used it all up).
      if (row.cells.every((placed, i) => (cut[i] as number) >= placed.lines.length)) {
        rowsOnPage++;
        break;
      }
      from = cut;
      startPage(true);
    }
    releaseRow(row);
  }
  painter.finish();
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
