// HTML tables through the shared table layer (table-layout.ts): <thead>
// rows become its header, repeated on every page; every column is `auto`,
// sized from its content as browsers size a table without widths.
import type { Rgb } from '../canvas.js';
import type { RenderContext } from '../context.js';
import { drawTable, type TableInput } from '../table-layout.js';
import type { TableBlock } from './blocks.js';

/** Thin grey grid lines: HTML tables have none by default, but a table without any reads badly on paper. */
const BORDER_WIDTH = 0.5;
const BORDER_COLOR: Rgb = Object.freeze({ r: 0.6, g: 0.6, b: 0.6 });
const HEADER_FILL: Rgb = Object.freeze({ r: 0.94, g: 0.94, b: 0.94 });
/** Cell padding in ems of the table's font size (4 pt at 12 pt). */
export const TABLE_PADDING = 1 / 3;

/** Draws the table from the cursor, `left` points into the flow's content box and `width` wide. */
export async function drawHtmlTable(context: RenderContext, block: TableBlock, field: string, left: number, width: number): Promise<void> {
  const input: TableInput = {
    columns: [],
    header: block.header,
    rows: block.rows,
    padding: TABLE_PADDING * block.size,
    borderWidth: block.borders ? BORDER_WIDTH : 0,
    borderColor: BORDER_COLOR,
    headerFill: block.header.length > 0 ? HEADER_FILL : undefined,
    // As browsers draw a table whose direction is rtl; auto (no dir set) keeps the first column at the left, as CSS's default ltr does.
    mirrored: block.direction === 'rtl',
  };
  await drawTable(context, input, field, { left, width });
}
