// HTML tables through the shared table layer (table-layout.ts): <thead>
// rows become its header, repeated on every page; every column is `auto`,
// sized from its content as browsers size a table without widths.
import type { Rgb } from '../canvas.js';
import type { RenderContext } from '../common.js';
import type { Flow } from '../flow.js';
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
  };
  const flow = left > 0 ? indented(context.flow, left, width) : context.flow;
  await drawTable({ ...context, flow }, input, field, width);
}

/**
 * The flow as seen from an indented box (a table in a list item or a
 * blockquote): the same pages, cursor and methods, with `left` and `width`
 * moved. drawTable takes its box from the flow, so this view places it
 * without a second table layout. Getters and methods run on the real flow,
 * whose private fields a proxy could not reach otherwise.
 */
function indented(flow: Flow, left: number, width: number): Flow {
  return new Proxy(flow, {
    get(target, property) {
      if (property === 'left') return target.left + left;
      if (property === 'width') return width;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
