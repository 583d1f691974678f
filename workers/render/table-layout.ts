// Tables in the flow, shared by add_table and HTML tables: column widths,
// row heights, and pagination with the header rows repeated on every page.
//
// The model is CSS's collapsed-border table: cells abut, each border is one
// line centred on a grid line, and a column's width runs from grid line to
// grid line (padding and half of each border inside it). The steps live in
// table/: measuring cells (measure.ts), column widths (widths.ts), the row
// loop (paginate.ts), and painting (paint.ts, text-ops.ts). Only what the
// page shows reaches the canvas: fills, lines of text, and one stroke per
// grid line segment.
import { RenderError } from './errors.js';
import type { RenderContext } from './context.js';
import { layRow, Measurer, spanCount, textLength } from './table/measure.js';
import { MAX_COLUMNS, MAX_TABLE_TEXT, type Grid, type TableBox, type TableFields, type TableInput } from './table/model.js';
import { paginate } from './table/paginate.js';
import { resolveColumnWidths } from './table/widths.js';

export { MAX_COLUMNS, MAX_TABLE_TEXT, type CellField, type ColumnWidth, type TableBox, type TableCell, type TableFields, type TableInput } from './table/model.js';

/** Lays the table out in the flow from the cursor, across `box` (default: the content box). `at` is the table's field path for errors. */
export async function drawTable(context: RenderContext, table: TableInput, at: string, box: TableBox = {}, fields: TableFields = {}): Promise<void> {
  const { flow, fonts } = context;
  const count = Math.min(MAX_COLUMNS, table.columns.length > 0 ? table.columns.length : Math.max(spanCount(table.header), spanCount(table.rows)));
  if (count === 0) return;
  const chars = textLength(table.header, MAX_TABLE_TEXT) + textLength(table.rows, MAX_TABLE_TEXT);
  if (chars > MAX_TABLE_TEXT) {
    throw new RenderError([
      { field: at, code: 'TOO_LARGE', message: `A table may hold at most ${MAX_TABLE_TEXT} characters of text (this one has more); split it into several tables.` },
    ]);
  }
  const b = table.borderWidth;
  const inset = table.padding + b / 2;
  // Padding and border alone taller than a page would leave no room for a line of text on any page.
  const pageRoom = flow.contentHeight;
  if (2 * inset > pageRoom) {
    const message = `padding and border take ${+(2 * inset).toFixed(2)} pt of every row's height, more than the ${+pageRoom.toFixed(2)} pt a page has for content`;
    throw new RenderError([{ field: fields.padding ?? at, code: 'OUT_OF_RANGE', message }]);
  }

  const measurer = new Measurer(fonts, fields.cell ?? (() => at), pageRoom - 2 * inset);
  const header = await measurer.rows('header', table.header, count, () => table.headerFill);
  const body = await measurer.rows('rows', table.rows, count, (index) => (index % 2 === 1 ? table.zebraFill : undefined));

  const offset = Math.max(0, box.left ?? 0);
  const available = Math.max(1, flow.width - offset);
  const tableWidth = Math.max(1, Math.min(box.width ?? available, available));
  const widths = resolveColumnWidths(table.columns, count, tableWidth - b, header.concat(body), inset);
  const left = flow.left + offset;
  const xs = new Float64Array(count + 1);
  xs[0] = left + b / 2;
  for (let i = 0; i < count; i++) xs[i + 1] = (xs[i] as number) + (widths[i] as number);
  const grid: Grid = { left, width: (xs[count] as number) - left + b / 2, xs, mirrored: table.mirrored === true, inset, borderWidth: b, borderColor: table.borderColor };

  for (const row of header) layRow(row, grid, fonts);
  paginate(flow, fonts, header, body, grid);
}
