// What the PDF reader hands to every task that reads PDFs (parse, extract-text,
// compare, tables, the render API's capability operations). Written down once
// so those tasks depend on these shapes, not on pdf.js (workers/seams/pdfjs.ts
// is the only module that imports it).
//
// Coordinates everywhere: points, origin at the top-left corner of the page
// as displayed (after /Rotate and the crop box), y growing downwards: the
// render API's own convention, so text placed by add_text at (x, y) reads
// back at (x, y).

/** One run of text with one font, size, colour and direction, as the PDF drew it. */
export interface TextItem {
  readonly text: string;
  /** Top-left corner of the run's box (ascent to descent), in the text's own direction. */
  readonly x: number;
  readonly y: number;
  /** Advance width along the baseline. */
  readonly width: number;
  /** Font size x (ascent - descent): the box from the top of tall letters to the bottom of descenders. */
  readonly height: number;
  /** y of the baseline at the run's start (for grouping into lines). */
  readonly baseline: number;
  /** The font's own name (BaseFont, subset tag removed), or pdf.js's fallback family when styles were not read. */
  readonly font: string;
  /** Points: the size the glyphs are drawn at on the page (text matrix and CTM included). */
  readonly fontSize: number;
  /** The fill colour in force, "#rrggbb" (gray and CMYK converted); "#000000" when styles were not read. */
  readonly color: string;
  readonly bold: boolean;
  readonly italic: boolean;
  /** Degrees clockwise from the page's horizontal as displayed, in [0, 360). */
  readonly rotation: number;
  /** Drawn with text render mode 3 (neither fill nor stroke), as OCR layers are. */
  readonly invisible: boolean;
  /** pdf.js says the run ends a line in the content stream. */
  readonly endsLine: boolean;
  /**
   * Advance of each non-whitespace character of `text` in points, from the
   * font's glyph widths; null when styles were not read or the glyphs could
   * not be lined up with the text. For splitting runs into words and characters.
   */
  readonly advances?: readonly number[] | null;
}

/** The page's size as displayed (width and height swap for /Rotate 90 and 270). */
export interface PageSize {
  readonly width: number;
  readonly height: number;
}

/**
 * What to read for each text item. Styles (real font name, colour, render
 * mode) cost pdf.js's operator list for the page: measured on the corpus at
 * roughly twice the time of the text alone, so tasks ask only when they
 * report them.
 */
export interface TextOptions {
  readonly styles: boolean;
}

/**
 * A page's drawing operators (pdf.js's operator list), for tasks that look
 * at ruling lines, images or colours. `ops` names the operator codes in
 * `fnArray`; `toPage` maps a point of the PDF's user space (after the
 * current transformation matrix has been applied by the caller) to page
 * coordinates.
 */
export interface Operators {
  readonly fnArray: readonly number[];
  readonly argsArray: readonly unknown[];
  readonly ops: Readonly<Record<string, number>>;
  /** pdf.js's codes of the path-drawing operators inside `constructPath`'s first argument. */
  readonly drawOps: Readonly<Record<string, number>>;
  toPage(x: number, y: number): readonly [number, number];
}

/** Document-level facts (accelerator contract, ParseMetadata). Dates are ISO 8601 or null. */
export interface DocumentInfo {
  readonly title: string | null;
  readonly author: string | null;
  readonly subject: string | null;
  readonly keywords: string | null;
  readonly creator: string | null;
  readonly producer: string | null;
  readonly createdAt: string | null;
  readonly modifiedAt: string | null;
  readonly pdfVersion: string | null;
  readonly isLinearized: boolean;
}

/** A bookmark (outline item): `page` is 1-based, null when its destination is not a page of this document. */
export interface Bookmark {
  readonly title: string;
  readonly page: number | null;
  readonly children: readonly Bookmark[];
}

export type FieldType = 'text' | 'checkbox' | 'radio' | 'choice' | 'signature' | 'button';

/** One widget of an interactive form field, on one page. */
export interface FormField {
  /** Fully qualified (parent names joined with "."). */
  readonly name: string;
  readonly type: FieldType;
  readonly value: string | boolean | readonly string[] | null;
  readonly options: readonly string[];
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly required: boolean;
  readonly readOnly: boolean;
}

/** An image drawn on a page: where, and what the PDF says about its pixels. */
export interface PlacedImage {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly pixelWidth: number;
  readonly pixelHeight: number;
  /** DeviceRGB, DeviceGray, DeviceCMYK, ICCBased, Indexed, ...; null when pdf.js does not say. */
  readonly colorSpace: string | null;
  readonly bitsPerComponent: number | null;
  /** The stream's last filter (DCTDecode, FlateDecode, JPXDecode, ...), null when unfiltered or inline. */
  readonly filter: string | null;
}

/** An image's pixels as decoded (for comparing images by what they show, not by their bytes). */
export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** Samples as pdf.js decodes them (8-bit gray, RGB or RGBA, row by row). */
  readonly data: Uint8Array;
}

/**
 * Which operators to list. `annotations`: the page's content followed by
 * every annotation's appearance, hidden ones too, each between pdf.js's
 * beginAnnotation (id, rect, transform, matrix) and endAnnotation, for a
 * task that must see everything a reader may show (redact). Off by default:
 * appearances are not page content.
 */
export interface OperatorOptions {
  readonly annotations: boolean;
}

/** The text an annotation holds outside its appearance: a field's value and default value, a comment's /Contents. */
export interface AnnotationText {
  /** The annotation's /Rect in page coordinates. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Each non-empty string, as pdf.js decodes it (a list's selected entries one by one). */
  readonly texts: readonly string[];
}

/** One page of an open document. Release it (`close`) before reading the next: pages are read one at a time. */
export interface ReaderPage {
  readonly number: number;
  readonly size: PageSize;
  text(options: TextOptions): Promise<readonly TextItem[]>;
  operators(options?: OperatorOptions): Promise<Operators>;
  /** The pixels of an image the operator list paints by name (`paintImageXObject`'s first argument); call after operators(). */
  decodedImage(name: string): DecodedImage | null;
  formFields(): Promise<readonly FormField[]>;
  /** Every annotation's texts (hidden annotations included), for searching what a reader finds beyond the drawn page. */
  annotationTexts(): Promise<readonly AnnotationText[]>;
  close(): void;
}

/** An open document. `close` frees everything pdf.js holds for it. */
export interface ReaderDocument {
  readonly pageCount: number;
  /** Set when the file was damaged and pdf.js rebuilt its cross-reference table to read it. */
  readonly notice: string | null;
  info(): Promise<DocumentInfo>;
  bookmarks(): Promise<readonly Bookmark[]>;
  page(number: number): Promise<ReaderPage>;
  close(): Promise<void>;
}
