// The table finder's inputs and output, in the reader's coordinates: points,
// origin at the page's top-left, y downwards (the render API's convention,
// issue 10). Inputs are plain data so the finders are pure functions that
// unit tests feed with synthetic pages, without a PDF.

/** A straight piece of a ruling line (stroked, or a thin filled rectangle's axis). */
export interface Segment {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

/** A word (no spaces inside) with its box; `y` is the top of the box. */
export interface Word {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface TableCell {
  /** 0-based index of the first grid row the cell covers. */
  readonly row: number;
  readonly column: number;
  readonly row_span: number;
  readonly column_span: number;
  /** Lines of the cell joined with `\n`, words of a line with a space. */
  readonly text: string;
}

/** The `tables[]` element of a parsed page (accel.openapi.yaml, ParsedTable). */
export interface Table {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly rows: number;
  readonly columns: number;
  /** How the table was found: from ruling lines, or from text alignment alone. */
  readonly method: 'lattice' | 'stream';
  /** Row-major; a spanning cell appears once, at its top-left grid position. */
  readonly cells: readonly TableCell[];
}

/** An axis-aligned box, used for cells and table areas. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}
