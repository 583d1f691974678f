// A table's structure in a tagged render. A table with header cells is a
// data table: Table > TR > TH/TD, header rows' cells TH with /Scope /Column,
// header cells of body rows (HTML <th>) TH with /Scope /Row, spans as
// /ColSpan, so every data cell has a header (PDF/UA-1 7.5); a body row of
// header cells only is a header row too. The header rows
// drawn again at the top of later pages are pagination artifacts: the tree
// has them once. A table without any header cell is a layout table (PDF/UA
// asks that layout tables not be tagged Table): a Div with each cell's text
// as a P, row by row.
import type { Placed, Row } from '../table/model.js';
import { Element, PAGINATION, type ElementOptions, type Structure } from './structure.js';

const COLUMN_HEADER: ElementOptions = Object.freeze({ scope: 'Column' });
const ROW_HEADER: ElementOptions = Object.freeze({ scope: 'Row' });

export class TableTags {
  readonly #table: Element;
  /** Each row's cell elements (data tables), made when the row is first drawn; a split row keeps them on the next page. */
  readonly #cells = new WeakMap<Row, Element[]>();
  readonly #data: boolean;
  #lastRow: Row | undefined;
  #lastCells: Element[] | undefined;

  constructor(
    private readonly structure: Structure,
    /** Rows given as the table's header (repeated on every page). */
    private readonly header: ReadonlySet<Row>,
    body: readonly Row[],
  ) {
    this.#data = header.size > 0 || body.some((row) => row.cells.some((placed) => placed.cell.header === true));
    this.#table = structure.child(this.#data ? 'Table' : 'Div');
  }

  /** Enters where cell `index` of `row` is drawn: its element, or an artifact for a repeated header. Leave with leave(). */
  enterCell(row: Row, index: number, repeated: boolean): void {
    // A row's cells are entered one after another: the last row's cells are kept at hand, not looked up per cell.
    let cells = row === this.#lastRow ? this.#lastCells : this.#cells.get(row);
    if (repeated) {
      const original = cells?.[index];
      this.structure.enter(original === undefined ? PAGINATION : { ...PAGINATION, repeats: original });
      return;
    }
    if (!this.#data) {
      // One P per cell with text, made when its first line is drawn.
      if (cells === undefined) this.#cells.set(row, (cells = []));
      let paragraph = cells[index];
      if (paragraph === undefined) cells[index] = paragraph = this.structure.childOf(this.#table, 'P');
      this.#remember(row, cells);
      this.structure.enter(paragraph);
      return;
    }
    if (cells === undefined) {
      // A row of header cells only is a header row even outside the table's header (HTML's <tr><th>.. in a table without <thead>).
      const headerRow = this.header.has(row) || row.cells.every((placed) => placed.cell.header === true || placed.cell.spans.length === 0);
      cells = row.cells.map((placed) => cell(placed, headerRow));
      // The row's kids are this array: nothing else is ever added to a TR.
      this.structure.childOf(this.#table, 'TR').adopt(cells);
      this.#cells.set(row, cells);
    }
    this.#remember(row, cells);
    this.structure.enter(cells[index] as Element);
  }

  #remember(row: Row, cells: Element[]): void {
    this.#lastRow = row;
    this.#lastCells = cells;
  }

  leave(): void {
    this.structure.close();
  }

}

/** A data table cell's element: TH or TD, its scope and span. */
function cell(placed: Placed, headerRow: boolean): Element {
  const colSpan = placed.span > 1 ? placed.span : undefined;
  if (headerRow) return new Element('TH', colSpan === undefined ? COLUMN_HEADER : { scope: 'Column', colSpan });
  if (placed.cell.header === true) return new Element('TH', colSpan === undefined ? ROW_HEADER : { scope: 'Row', colSpan });
  // Most cells span one column: no options object made for them.
  return colSpan === undefined ? new Element('TD') : new Element('TD', { colSpan });
}
