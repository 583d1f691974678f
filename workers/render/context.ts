// What every operation runs in (the document, the flow, fonts, the current
// text style), and the shape of one operation type. Types only, so the
// modules it names can import the operation table without a cycle.
import type * as v from 'valibot';
import type { Document } from '../seams/pdf.js';
import type { Flow } from './flow.js';
import type { FontBook } from './fonts.js';
import type { Headings } from './headings.js';
import type { TextStyle } from './inline.js';
import type { Orientation } from './page-sizes.js';

export interface RenderContext {
  readonly doc: Document;
  readonly flow: Flow;
  readonly fonts: FontBook;
  /** The headings so far: their tagged levels, and the outline's entries. */
  readonly headings: Headings;
  /** The text style set_font maintains; operations override parts of it per call. */
  style: TextStyle;
  readonly pageSize: (size: string | undefined, orientation: Orientation | undefined) => readonly [number, number];
}

/** One operation type: its schema and what it does. `at` is its field path, e.g. `operations[3]`. */
export interface OperationType<S extends v.GenericSchema> {
  readonly schema: S;
  run(op: v.InferOutput<S>, context: RenderContext, at: string): Promise<void> | void;
}
