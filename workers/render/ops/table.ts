// add_table: a table in the flow, header rows repeated on every page. This
// module is the JSON face of table-layout.ts: it validates the operation,
// checks what a per-field schema cannot (spans against the column count),
// and turns cells into styled spans. Field paths in errors follow the
// request (`operations[3].rows[2][1].colspan`).
import * as v from 'valibot';
import { BLACK, type Rgb } from '../canvas.js';
import { align, color, fontSize, points } from '../fields.js';
import type { OperationType } from '../context.js';
import type { Align, TextStyle } from '../inline.js';
import { drawTable, MAX_COLUMNS, type ColumnWidth, type TableCell } from '../table-layout.js';

/** Bounds that keep one request's work and memory small: 100,000 cells is about 500 A4 pages of a 5-column table. */
const MAX_HEADER_ROWS = 10;
const MAX_ROWS = 20_000;
const MAX_CELLS = 100_000;
const MAX_CELL_TEXT = 10_000;

const cellText = v.pipe(v.string(), v.maxLength(MAX_CELL_TEXT));
const cellObject = v.strictObject({
  text: cellText,
  colspan: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_COLUMNS))),
  align: v.optional(align),
  bold: v.optional(v.boolean()),
  italic: v.optional(v.boolean()),
  color: v.optional(color),
  fill: v.optional(color),
});
const notACell = v.string('must be a string or an object with text');
// lazy, not union: a union reports only "expected string | Object" for an object cell with one bad field.
// Anything neither string nor object meets a string schema, so it is reported as a wrong type.
const cell = v.lazy((input) => (typeof input === 'string' ? cellText : typeof input === 'object' && input !== null && !Array.isArray(input) ? cellObject : notACell));
type Cell = v.InferOutput<typeof cell>;
const row = v.pipe(v.array(cell, 'must be an array of cells'), v.maxLength(MAX_COLUMNS));

/** A column: points (fixed), "auto" (from the content), or "Nfr" (a weight of the width left over). */
const column = v.lazy((input) =>
  typeof input === 'number'
    ? v.pipe(
        v.number(),
        v.finite(),
        v.gtValue(0, 'must be a positive width in points'),
        points(),
        v.transform((width): ColumnWidth => ({ kind: 'fixed', points: width })),
      )
    : v.pipe(
        v.string('must be a width in points, "auto" or a fraction such as "2fr"'),
        v.regex(/^(?:auto|\d{1,4}(?:\.\d+)?fr)$/, 'must be a width in points, "auto" or a fraction such as "2fr"'),
        v.transform((text): ColumnWidth => (text === 'auto' ? { kind: 'auto' } : { kind: 'fraction', weight: Number.parseFloat(text) })),
        v.check((width) => width.kind !== 'fraction' || width.weight > 0, 'a fraction must be more than 0fr'),
      ),
);

const schema = v.pipe(
  v.strictObject({
    type: v.literal('add_table'),
    /** One entry per column; default: every column auto, as many as the widest row spans. */
    columns: v.optional(v.pipe(v.array(column), v.maxLength(MAX_COLUMNS))),
    /** One row of cells, or several rows; repeated at the top of every page. */
    header: v.optional(v.pipe(v.array(v.lazy((input) => (Array.isArray(input) ? row : cell))), v.maxLength(MAX_COLUMNS))),
    rows: v.pipe(v.array(row, 'must be an array of rows'), v.maxLength(MAX_ROWS)),
    /** Text alignment of every column, or of each column in turn (default: each cell's start side, right for right-to-left text); a cell's own align wins. */
    align: v.optional(v.lazy((input) => (Array.isArray(input) ? v.pipe(v.array(align), v.maxLength(MAX_COLUMNS)) : align))),
    /** Table width in points; default and maximum: the content width. */
    width: v.optional(v.pipe(points(), v.minValue(1))),
    padding: v.optional(points(100), 4),
    /** Width 0 draws no borders. */
    border: v.optional(v.strictObject({ width: v.optional(points(20), 0.5), color: v.optional(color) }), {}),
    header_fill: v.optional(color),
    /** Fill of every second body row. */
    zebra: v.optional(color),
    size: v.optional(fontSize),
    color: v.optional(color),
    /** Space below the table; default half the font size. */
    spacing_after: v.optional(points(1_000)),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const issue of crossCheck(dataset.value)) addIssue({ message: issue.message, path: issue.path });
  }),
);

type AddTable = v.InferOutput<typeof schema>;
type Path = [v.IssuePathItem, ...v.IssuePathItem[]];

/** The header as rows, and whether the request wrote it as rows (for field paths). */
function headerRows(header: AddTable['header']): { rows: Cell[][]; nested: boolean } {
  if (header === undefined || header.length === 0) return { rows: [], nested: false };
  return header.every(Array.isArray) ? { rows: header as Cell[][], nested: true } : { rows: [header as Cell[]], nested: false };
}

const key = (input: unknown, key: string | number): v.IssuePathItem =>
  typeof key === 'number' ? { type: 'array', origin: 'value', input: input as unknown[], key, value: (input as unknown[])[key] } : { type: 'object', origin: 'value', input: input as Record<string, unknown>, key, value: (input as Record<string, unknown>)[key] };

/** What a per-field schema cannot see: the header's shape, spans past the columns, alignments past them, too many cells. */
function crossCheck(op: AddTable): Array<{ message: string; path: Path }> {
  const issues: Array<{ message: string; path: Path }> = [];
  if (op.header !== undefined && op.header.some(Array.isArray) && !op.header.every(Array.isArray)) {
    issues.push({ message: 'must be one row of cells or an array of rows, not a mix', path: [key(op, 'header')] });
  }
  const header = headerRows(op.header);
  if (header.nested && header.rows.length > MAX_HEADER_ROWS) {
    issues.push({ message: `may hold at most ${MAX_HEADER_ROWS} rows`, path: [key(op, 'header')] });
  }
  let cells = 0;
  for (const r of op.rows) cells += r.length;
  for (const r of header.rows) cells += r.length;
  if (cells > MAX_CELLS) issues.push({ message: `a table may hold at most ${MAX_CELLS} cells (this one has ${cells})`, path: [key(op, 'rows')] });

  const count = op.columns !== undefined && op.columns.length > 0 ? op.columns.length : undefined;
  // Without columns the widest row sets the count, which colspans could take to 100 x 100 columns.
  const limit = count ?? MAX_COLUMNS;
  const past = count !== undefined ? `the table has ${count} columns` : `a table may have at most ${MAX_COLUMNS} columns`;
  const sections: Array<[Cell[][], (r: number) => Path]> = [
    [header.rows, (r) => (header.nested ? [key(op, 'header'), key(op.header, r)] : [key(op, 'header')])],
    [op.rows, (r) => [key(op, 'rows'), key(op.rows, r)]],
  ];
  let widest = 0;
  for (const [rows, rowPath] of sections) {
    rows.forEach((cellsOfRow, r) => {
      let col = 0;
      let reported = false;
      cellsOfRow.forEach((c, i) => {
        const span = typeof c === 'string' ? 1 : (c.colspan ?? 1);
        // One issue per row: the first cell that reaches past the last column.
        if (!reported && col + span > limit) {
          reported = true;
          const at: Path = [...rowPath(r), key(cellsOfRow, i)];
          if (typeof c !== 'string' && c.colspan !== undefined && col < limit) at.push(key(c, 'colspan'));
          issues.push({ message: `reaches column ${col + span} but ${past}`, path: at });
        }
        col += span;
      });
      widest = Math.max(widest, col);
    });
  }
  const columns = count ?? Math.min(widest, MAX_COLUMNS);
  if (Array.isArray(op.align) && op.align.length > columns) {
    issues.push({ message: `gives ${op.align.length} alignments for ${columns} columns`, path: [key(op, 'align')] });
  }
  return issues;
}

export const addTable: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const base = context.style;
    const body: TextStyle = { ...base, size: op.size ?? base.size, color: op.color ?? base.color, underline: false, strike: false, link: undefined };
    // Header cells are bold unless they say otherwise.
    const head: TextStyle = { ...body, bold: true };
    const header = headerRows(op.header);
    // No align anywhere: the cell's start side (left, or right for a right-to-left cell).
    const columnAlign = (col: number): Align | undefined => (typeof op.align === 'string' ? op.align : op.align?.[col]);

    // Cells share style objects (the layout measures each (style, text) once); overrides get one style per combination.
    const variants = new Map<string, TextStyle>();
    const styleOf = (style: TextStyle, c: Exclude<Cell, string>): TextStyle => {
      if (c.bold === undefined && c.italic === undefined && c.color === undefined) return style;
      const bold = c.bold ?? style.bold;
      const italic = c.italic ?? style.italic;
      const fill: Rgb = c.color ?? style.color;
      const name = `${style === head ? 'h' : 'b'}${bold ? 1 : 0}${italic ? 1 : 0}${fill.r},${fill.g},${fill.b}`;
      let variant = variants.get(name);
      if (variant === undefined) variants.set(name, (variant = { ...style, bold, italic, color: fill }));
      return variant;
    };
    const convert = (rows: readonly Cell[][], style: TextStyle): TableCell[][] =>
      rows.map((cells) => {
        let col = 0;
        return cells.map((c): TableCell => {
          if (typeof c === 'string') return { spans: [{ text: c, style }], colspan: 1, align: columnAlign(col++) };
          const colspan = c.colspan ?? 1;
          const converted = { spans: [{ text: c.text, style: styleOf(style, c) }], colspan, align: c.align ?? columnAlign(col), fill: c.fill };
          col += colspan;
          return converted;
        });
      });

    const cellField = (part: 'header' | 'rows', r: number, i: number): string => {
      const source = part === 'header' ? header.rows : op.rows;
      const suffix = typeof source[r]?.[i] === 'string' ? '' : '.text';
      if (part === 'rows') return `${at}.rows[${r}][${i}]${suffix}`;
      return header.nested ? `${at}.header[${r}][${i}]${suffix}` : `${at}.header[${i}]${suffix}`;
    };
    await drawTable(
      context,
      {
        columns: op.columns ?? [],
        header: convert(header.rows, head),
        rows: convert(op.rows, body),
        padding: op.padding,
        borderWidth: op.border.width,
        borderColor: op.border.color ?? BLACK,
        headerFill: op.header_fill,
        zebraFill: op.zebra,
      },
      at,
      { width: op.width },
      { cell: cellField, padding: `${at}.padding` },
    );
    context.flow.advance(op.spacing_after ?? body.size * 0.5);
  },
};
