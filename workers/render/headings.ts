// The document's headings (add_text's `heading`, HTML's <h1>-<h6>): the
// level each is tagged with, and where each starts, for the outline
// (output.outline) the document's bookmarks are made of.
//
// PDF/UA-1 7.4.2 forbids skipping levels (an H3 right after an H1, or a
// first heading other than H1: our check-accessibility's rule 7.4.2-1), yet
// documents do skip: an HTML fragment starting at <h2>, an add_text heading
// 3 under a 1. So a heading's level is its depth among the headings around
// it: the levels asked for that are lower than its own and still open (not
// closed by a heading of the same or a higher level). h2, h3, h2 → 1, 2, 1;
// h1, h3 → 1, 2. Levels that never skip stay as given; the drawn text keeps
// the size and weight it was asked for. The outline nests by the same
// levels, so a bookmark is never two levels below its parent either.

/** A heading as the outline needs it: `page` is the page canvas until the document numbers its pages. */
export interface HeadingEntry {
  readonly level: number;
  readonly title: string;
  readonly page: object;
  /** Distance from the page's top edge to the top of the heading's first line, in points. */
  readonly top: number;
}

/** Outline titles are read in a narrow panel; a long heading is cut (the structure tree keeps its whole text). */
const MAX_TITLE = 200;

export class Headings {
  readonly entries: HeadingEntry[] = [];
  /** Levels asked for by the headings enclosing the current point, outermost first (strictly increasing). */
  readonly #open: number[] = [];

  /**
   * The level (1-6) a heading asked for at `level` (1-6) is tagged with, the
   * next in document order; records it where its first line is drawn.
   */
  add(level: number, text: string, page: object, top: number): number {
    const title = text.replace(/\s+/g, ' ').trim();
    // A heading with no text is none to a reader: no bookmark, and no level for the headings after it (its
    // element, empty, is left out of the structure tree too).
    if (title === '') return this.#open.filter((open) => open < level).length + 1;
    while (this.#open.length > 0 && (this.#open[this.#open.length - 1] as number) >= level) this.#open.pop();
    this.#open.push(level);
    this.entries.push({ level: this.#open.length, title: title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title, page, top });
    return this.#open.length;
  }
}
