// The document's flow: pages in order, the current page, and a cursor that
// moves down the content box (the page minus its margins). Blocks ask for
// room before they draw; a block that does not fit goes to a new page of
// the current size, unless it would not fit on an empty page either (it is
// then drawn where it is, and the caller splits it if it can).
import { PageCanvas } from './canvas.js';
import { RenderError } from './errors.js';
import type { Structure } from './tagging/structure.js';

export interface Margins {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/** Thrown when a document would exceed its page budget. */
export class PageLimitError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} pages`);
    this.name = 'PageLimitError';
  }
}

export class Flow {
  readonly pages: PageCanvas[] = [];
  #page: PageCanvas | undefined;
  #size: readonly [number, number];
  /** Distance from the top edge of the current page to the next block. */
  #cursor = 0;

  constructor(
    size: readonly [number, number],
    readonly margins: Margins,
    private readonly maxPages: number,
    /** The structure tree of a tagged render: every page writes marked content for it. */
    readonly structure?: Structure,
  ) {
    this.#size = size;
  }

  get page(): PageCanvas {
    return this.#page ?? this.newPage();
  }

  get cursor(): number {
    if (this.#page === undefined) this.newPage();
    return this.#cursor;
  }

  get left(): number {
    return this.margins.left;
  }

  /** Width of the content box of the current page size. */
  get width(): number {
    return Math.max(1, this.#size[0] - this.margins.left - this.margins.right);
  }

  /** Height of the content box of the current page: the most one line, or one block that cannot be split, may take. */
  get contentHeight(): number {
    return this.page.height - this.margins.top - this.margins.bottom;
  }

  /** Room left on the current page below the cursor. */
  get room(): number {
    return this.page.height - this.margins.bottom - this.cursor;
  }

  /** True when the cursor is at the top of the content box (nothing drawn in the flow yet). */
  get atTop(): boolean {
    return this.#page === undefined || this.#cursor <= this.margins.top;
  }

  newPage(size: readonly [number, number] = this.#size): PageCanvas {
    if (this.pages.length >= this.maxPages) throw new PageLimitError(this.maxPages);
    this.#size = size;
    this.#page?.compact();
    this.#page = new PageCanvas(size[0], size[1], this.structure);
    this.pages.push(this.#page);
    this.#cursor = this.margins.top;
    return this.#page;
  }

  /** Makes room for a block of `height`: a new page when it does not fit below the cursor and would fit on a fresh one. */
  ensure(height: number): void {
    if (height > this.room && !this.atTop) this.newPage();
  }

  advance(height: number): void {
    this.#cursor = this.cursor + height;
  }
}

/** The smallest content box worth laying out: one line of small text. */
const MIN_CONTENT = 12;

/** Margins must leave a content box, or every page would be blank (or every line a new page). */
export function checkContentBox(size: readonly [number, number], margins: Margins, field: string): void {
  if (size[0] - margins.left - margins.right >= MIN_CONTENT && size[1] - margins.top - margins.bottom >= MIN_CONTENT) return;
  throw new RenderError([
    { field, code: 'OUT_OF_RANGE', message: `the margins leave no room on a ${size[0].toFixed(0)} × ${size[1].toFixed(0)} pt page; make them smaller` },
  ]);
}

/**
 * Refuses a line taller than the content box (its size times line_height,
 * or its glyphs): a line cannot be split between pages, and drawn anyway
 * its glyphs, half its leading below its top, crossed the bottom margin or
 * left the page (a 300 pt letter at line_height 5 was drawn 35 pt below
 * the page's bottom edge, a 200 with nothing missing, issue 15's hunt).
 * `room` is what the line may take: the content box, less a table cell's
 * padding and border.
 */
export function checkLineHeights(lines: readonly { readonly height: number }[], room: number, field: string): void {
  let tallest = 0;
  for (const line of lines) tallest = Math.max(tallest, line.height);
  if (tallest <= room + 0.01) return;
  throw new RenderError([
    {
      field,
      code: 'OUT_OF_RANGE',
      message: `a line of this text is ${+tallest.toFixed(2)} pt tall (its font size times line_height), more than the ${+room.toFixed(2)} pt a page has for it between its margins; make the size or line_height smaller`,
    },
  ]);
}
