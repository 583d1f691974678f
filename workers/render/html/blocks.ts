// The block tree add_html lays out: what the HTML walker (build.ts) makes
// of parse5's DOM, and what layout.ts places in the flow. Styles are already
// resolved (inheritance, inline style attributes, tag defaults), so layout
// needs no knowledge of HTML.
//
// `before` and `after` are vertical margins in points; adjacent margins
// collapse to the larger one, as CSS 2.1 section 8.3.1 describes, and vanish
// at the top of a page.
import type { Direction } from '../bidi.js';
import type { Align, Span, TextAlign } from '../inline.js';

export interface Margins {
  before: number;
  after: number;
}

/** A paragraph, heading or anonymous run of text: whitespace collapsed, `\n` for <br>. */
export interface TextBlock extends Margins {
  readonly kind: 'text';
  readonly spans: Span[];
  readonly align: TextAlign;
  readonly direction: Direction;
  /** Keep-with-next: room wanted below the block's last line on the same page (headings). */
  readonly keep: number;
  /** Heading level asked for (1-6, <h1>-<h6>): an H element in a tagged render and an outline entry; a paragraph when absent. */
  readonly heading?: number;
}

/** Preformatted text: spans keep every space and line break. */
export interface PreBlock extends Margins {
  readonly kind: 'pre';
  readonly spans: Span[];
}

export interface ListItem {
  /** "•", "◦", "▪" or "3."; undefined for content of a list outside any <li>. */
  readonly marker: Span | undefined;
  readonly blocks: Block[];
}

export interface ListBlock extends Margins {
  readonly kind: 'list';
  readonly items: ListItem[];
  /** The list's direction (dir, CSS direction, inherited): right to left puts the markers and the indent at the right. */
  readonly direction: Direction;
  /** Font size of the list, the unit of its indent. */
  readonly size: number;
}

export interface QuoteBlock extends Margins {
  readonly kind: 'quote';
  readonly blocks: Block[];
  readonly size: number;
}

export interface RuleBlock extends Margins {
  readonly kind: 'rule';
  readonly size: number;
}

export interface TableCellData {
  readonly spans: Span[];
  readonly colspan: number;
  readonly align: TextAlign;
  readonly direction: Direction;
  /** A <th> outside <thead>: a row header. */
  readonly header: boolean;
}

export interface TableBlock extends Margins {
  readonly kind: 'table';
  /** <thead> rows: repeated on every page. */
  readonly header: TableCellData[][];
  readonly rows: TableCellData[][];
  readonly size: number;
  /** border="0" turns the grid lines off. */
  readonly borders: boolean;
  /** The table's direction (dir, CSS direction, inherited): right to left puts the first column at the right. */
  readonly direction: Direction;
}

export interface ImageBlock extends Margins {
  readonly kind: 'image';
  readonly bytes: Uint8Array;
  /** From the width/height attributes, in points. */
  readonly width: number | undefined;
  readonly height: number | undefined;
  readonly align: Align;
  /** The alt attribute: the Figure's alternate text in a tagged render ("" for decoration). */
  readonly alt: string | undefined;
}

export type Block = TextBlock | PreBlock | ListBlock | QuoteBlock | RuleBlock | TableBlock | ImageBlock;
