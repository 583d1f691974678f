// PDF/UA-1 rules on a table's grid (7.2-15, 7.2-41..43) and its headers
// (7.5): the cells of each row placed left to right, skipping the places
// that row and column spans above have taken (HTML's table model, which
// §14.8.5.7's RowSpan/ColSpan follow), then the grid tested for overlaps,
// ragged rows and columns, and data cells without a header.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfName, PdfString } from '../../untrusted/pdf-values.js';
import type { Violation } from '../rules.js';
import type { StructureElement } from '../structure-tree.js';
import type { UaDocument } from './document.js';
import { attribute, describe, textEntry } from './elements.js';
import { uaRule, type UaRule } from './rule.js';

interface Cell {
  readonly element: StructureElement;
  readonly row: number;
  readonly column: number;
  readonly rowSpan: number;
  readonly columnSpan: number;
}

interface Grid {
  readonly cells: readonly Cell[];
  /** Cells that land on a place another cell already covers. */
  readonly overlapping: readonly Cell[];
  /** Columns covered by each row. */
  readonly widths: readonly number[];
  /** Rows covered, counting spans past the last row. */
  readonly height: number;
  readonly rows: number;
}

/** Grid size bound: a hostile span must not allocate a million places. */
const MAX_SPAN = 1000;

function rowsOf(table: StructureElement): StructureElement[] {
  const rows: StructureElement[] = [];
  for (const kid of table.kids) {
    if (kid.standardType === 'TR') rows.push(kid);
    else if (kid.standardType === 'THead' || kid.standardType === 'TBody' || kid.standardType === 'TFoot') rows.push(...kid.kids.filter((k) => k.standardType === 'TR'));
  }
  return rows;
}

function span(pdf: PdfObjects, element: StructureElement, key: 'RowSpan' | 'ColSpan'): number {
  const value = attribute(pdf, element, 'Table', key);
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_SPAN) : 1;
}

function gridOf(pdf: PdfObjects, table: StructureElement): Grid {
  const taken = new Set<string>();
  const cells: Cell[] = [];
  const overlapping: Cell[] = [];
  const rows = rowsOf(table);
  const widths = rows.map(() => 0);
  let height = rows.length;
  rows.forEach((row, r) => {
    let column = 0;
    for (const element of row.kids) {
      if (element.standardType !== 'TH' && element.standardType !== 'TD') continue;
      while (taken.has(`${r},${column}`)) column++;
      const cell = { element, row: r, column, rowSpan: span(pdf, element, 'RowSpan'), columnSpan: span(pdf, element, 'ColSpan') };
      let overlaps = false;
      for (let dr = 0; dr < cell.rowSpan; dr++) {
        for (let dc = 0; dc < cell.columnSpan; dc++) {
          const place = `${r + dr},${column + dc}`;
          if (taken.has(place)) overlaps = true;
          taken.add(place);
          if (r + dr < rows.length) widths[r + dr] = Math.max(widths[r + dr]!, column + dc + 1);
        }
      }
      height = Math.max(height, r + cell.rowSpan);
      if (overlaps) overlapping.push(cell);
      cells.push(cell);
      column += cell.columnSpan;
    }
  });
  return { cells, overlapping, widths, height, rows: rows.length };
}

function* tables(doc: UaDocument): Generator<[StructureElement, Grid]> {
  for (const element of doc.structure.elements) if (element.standardType === 'Table') yield [element, gridOf(doc.pdf, element)];
}

/** The first row whose width differs from the first row's, with whether a cell of it spans columns (veraPDF's wrongColumnSpan). */
function raggedRow(grid: Grid): { row: number; spans: boolean } | undefined {
  const expected = grid.widths[0];
  const row = grid.widths.findIndex((width) => width !== expected);
  if (row < 0) return undefined;
  return { row, spans: grid.cells.some((cell) => (cell.row === row || cell.row === 0) && cell.columnSpan > 1) };
}

function scopeOf(pdf: PdfObjects, element: StructureElement): string | undefined {
  const scope = attribute(pdf, element, 'Table', 'Scope');
  return scope instanceof PdfName ? scope.name : undefined;
}

function headerIds(pdf: PdfObjects, element: StructureElement): string[] | undefined {
  const headers = attribute(pdf, element, 'Table', 'Headers');
  if (!Array.isArray(headers)) return undefined;
  return headers.map((h) => pdf.resolve(h)).filter((h): h is PdfString => h instanceof PdfString).map((h) => h.text);
}

/** For each data cell: whether a header is connected to it, and the Headers ids that name no TH of the table. */
function* dataCells(doc: UaDocument): Generator<{ cell: Cell; connected: boolean; unknown: string[] }> {
  for (const [, grid] of tables(doc)) {
    const thIds = new Set(grid.cells.filter((c) => c.element.standardType === 'TH').map((c) => textEntry(doc.pdf, c.element.dict, 'ID')).filter((id): id is string => id !== undefined));
    const headers = grid.cells.filter((c) => c.element.standardType === 'TH');
    for (const cell of grid.cells) {
      if (cell.element.standardType !== 'TD') continue;
      // An empty cell (the corner of a table headed on two sides) has nothing a header could describe.
      if (!cell.element.dict.has('K')) continue;
      const ids = headerIds(doc.pdf, cell.element);
      if (ids !== undefined && ids.length > 0) {
        const unknown = ids.filter((id) => !thIds.has(id));
        yield { cell, connected: unknown.length === 0, unknown };
        continue;
      }
      const connected = headers.some((th) => {
        const scope = scopeOf(doc.pdf, th.element);
        const sameColumn = th.column < cell.column + cell.columnSpan && cell.column < th.column + th.columnSpan;
        const sameRow = th.row < cell.row + cell.rowSpan && cell.row < th.row + th.rowSpan;
        return (sameColumn && scope !== 'Row') || (sameRow && scope !== 'Column');
      });
      yield { cell, connected, unknown: [] };
    }
  }
}

export const TABLE_RULES: readonly UaRule[] = [
  uaRule('7.2-15', 'A table cell shall not have intersection with other cells', function* (doc): Iterable<Violation> {
    for (const [table, grid] of tables(doc)) for (const cell of grid.overlapping) yield { sample: `${describe(cell.element)} at row ${cell.row + 1}, column ${cell.column + 1} of ${describe(table)} overlaps another cell` };
  }),
  uaRule('7.2-41', 'Table columns shall have the same number of rows (taking into account row spans)', function* (doc) {
    for (const [table, grid] of tables(doc)) if (grid.height > grid.rows) yield { sample: `a row span in ${describe(table)} reaches past its ${grid.rows} rows` };
  }),
  uaRule('7.2-42', 'Table rows shall have the same number of columns (taking into account column spans)', function* (doc) {
    for (const [table, grid] of tables(doc)) {
      const ragged = raggedRow(grid);
      if (ragged !== undefined && !ragged.spans) yield { sample: `row ${ragged.row + 1} of ${describe(table)} has ${grid.widths[ragged.row]} columns, row 1 has ${grid.widths[0]}` };
    }
  }),
  uaRule('7.2-43', 'Table rows shall have the same number of columns (taking into account column spans)', function* (doc) {
    for (const [table, grid] of tables(doc)) {
      const ragged = raggedRow(grid);
      if (ragged !== undefined && ragged.spans) yield { sample: `a ColSpan makes row ${ragged.row + 1} of ${describe(table)} ${grid.widths[ragged.row]} columns wide, row 1 is ${grid.widths[0]}` };
    }
  }),
  uaRule('7.5-1', 'If the table\'s structure is not determinable via Headers and IDs, then structure elements of type TH shall have a Scope attribute', function* (doc) {
    for (const { cell, connected, unknown } of dataCells(doc)) if (!connected && unknown.length === 0) yield { sample: `${describe(cell.element)} at row ${cell.row + 1}, column ${cell.column + 1} has no header` };
  }),
  uaRule('7.5-2', 'If the table\'s structure is not determinable via Headers and IDs, then structure elements of type TH shall have a Scope attribute', function* (doc) {
    for (const { cell, unknown } of dataCells(doc)) if (unknown.length > 0) yield { sample: `${describe(cell.element)} names headers ${unknown.join(', ')} that no TH has as /ID` };
  }),
];
