// A PDF as the chunker sees it: headings, paragraphs and tables in reading
// order, each with its page. Headings come from the outline when the
// document has one (its titles matched to the blocks they name, the depth
// giving the level), else from the reader's blocks by size and weight: a
// short block set larger than the body text, or bold at body size, without
// sentence-final punctuation. Ruled tables come from the reader's table
// finder and their words are taken out of the text, so a table is never
// read twice.
import { layoutPage, type TextBlock } from '../read/layout/page-layout.js';
import { pageTables } from '../read/tables/page-tables.js';
import type { Table } from '../read/tables/types.js';
import type { Bookmark, ReaderDocument, TextItem } from '../read/types.js';
import type { WorkBudget } from '../read/request.js';
import { tableMarkdown } from './markdown.js';

export type Element =
  | { readonly kind: 'heading'; readonly level: number; readonly text: string; readonly page: number }
  | { readonly kind: 'paragraph'; readonly text: string; readonly page: number }
  | { readonly kind: 'table'; readonly markdown: string; readonly rows: readonly string[]; readonly page: number };

/** A heading is at most this long and this many lines; longer is a paragraph set large. */
const HEADING_MAX_CHARS = 200;
const HEADING_MAX_LINES = 3;
/** Larger than the body text by this ratio makes a short block a heading. */
const HEADING_SIZE_RATIO = 1.15;

interface Block {
  readonly text: string;
  readonly page: number;
  readonly fontSize: number;
  readonly bold: boolean;
  readonly lines: number;
  readonly top: number;
}

type Piece = { readonly block: Block } | { readonly table: Table; readonly page: number };

export async function readElements(document: ReaderDocument, tables: boolean, budget: WorkBudget): Promise<Element[]> {
  const pieces: Piece[] = [];
  for (let number = 1; number <= document.pageCount; number++) {
    const page = await document.page(number);
    try {
      const items = await page.text({ styles: true });
      budget.spend(items.length, number);
      let found: Table[] = [];
      if (tables) {
        const operators = await page.operators();
        budget.spend(operators.fnArray.length, number);
        // Ruled tables only: a table found from text alignment alone is a guess that prose laid out in
        // columns can fool, and a wrong guess would cut its sentences into cells.
        found = pageTables(items, operators).filter((table) => table.method === 'lattice');
      }
      const free = found.length === 0 ? items : items.filter((item) => !found.some((table) => inside(item, table)));
      const blocks = layoutPage(free.filter((item) => !item.invisible)).map((block) => blockOf(block, number));
      pieces.push(...inReadingOrder(blocks, found, number));
    } finally {
      page.close();
    }
  }
  const outline = await document.bookmarks();
  return outline.length > 0 ? fromOutline(pieces, outline) : fromTypography(pieces);
}

function blockOf(block: TextBlock, page: number): Block {
  const items = block.lines.flatMap((line) => line.items);
  const chars = (item: TextItem) => item.text.length;
  const total = items.reduce((sum, item) => sum + chars(item), 0);
  const bold = items.filter((item) => item.bold).reduce((sum, item) => sum + chars(item), 0);
  return { text: normalise(block.lines.map((line) => line.text).join('\n')), page, fontSize: block.fontSize, bold: total > 0 && bold / total > 0.9, lines: block.lines.length, top: block.y };
}

/** Blocks keep the reader's order; each table goes before the first block that starts below its top edge. */
function inReadingOrder(blocks: readonly Block[], tables: readonly Table[], page: number): Piece[] {
  const pieces: Piece[] = blocks.map((block) => ({ block }));
  for (const table of [...tables].sort((a, b) => a.y - b.y)) {
    const at = pieces.findIndex((piece) => 'block' in piece && piece.block.top > table.y);
    pieces.splice(at === -1 ? pieces.length : at, 0, { table, page });
  }
  return pieces;
}

function inside(item: TextItem, table: Table): boolean {
  const cx = item.x + item.width / 2;
  const cy = item.y + item.height / 2;
  return cx >= table.x && cx <= table.x + table.width && cy >= table.y && cy <= table.y + table.height;
}

function normalise(text: string): string {
  // Lines of one paragraph join with a space; a word hyphenated at a line end joins whole.
  return text
    .replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

function fromTypography(pieces: readonly Piece[]): Element[] {
  const blocks = pieces.flatMap((piece) => ('block' in piece ? [piece.block] : []));
  const body = bodySize(blocks);
  const headingSizes = [...new Set(blocks.filter((block) => isHeading(block, body)).map((block) => Math.round(block.fontSize)))].sort((a, b) => b - a);
  return pieces.flatMap((piece): Element[] => {
    if ('table' in piece) return [tableElement(piece.table, piece.page)];
    const { block } = piece;
    if (block.text === '') return [];
    if (isHeading(block, body)) return [{ kind: 'heading', level: headingSizes.indexOf(Math.round(block.fontSize)) + 1, text: block.text, page: block.page }];
    return [{ kind: 'paragraph', text: block.text, page: block.page }];
  });
}

/** The size most characters are set in. */
function bodySize(blocks: readonly Block[]): number {
  const weight = new Map<number, number>();
  for (const block of blocks) weight.set(Math.round(block.fontSize), (weight.get(Math.round(block.fontSize)) ?? 0) + block.text.length);
  return [...weight.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}

function isHeading(block: Block, body: number): boolean {
  if (block.text.length === 0 || block.text.length > HEADING_MAX_CHARS || block.lines > HEADING_MAX_LINES) return false;
  if (/[.;,:]$/.test(block.text) || !/\p{L}/u.test(block.text)) return false;
  if (block.fontSize >= body * HEADING_SIZE_RATIO) return true;
  return block.bold && block.fontSize >= body * 0.95 && block.text.length <= HEADING_MAX_CHARS / 2;
}

/** The outline's titles become the headings: each matched to a block on its page, else a heading at the top of that page. */
function fromOutline(pieces: readonly Piece[], outline: readonly Bookmark[]): Element[] {
  const marks = flatten(outline, 1).filter((mark) => mark.page !== null) as { title: string; page: number; level: number }[];
  const key = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
  const matched = new Map<Block, { title: string; level: number }>();
  const unmatched: { title: string; page: number; level: number }[] = [];
  for (const mark of marks) {
    const block = pieces.find((piece): piece is { block: Block } => 'block' in piece && piece.block.page === mark.page && !matched.has(piece.block) && key(piece.block.text) === key(mark.title));
    if (block === undefined) unmatched.push(mark);
    else matched.set(block.block, mark);
  }
  const elements: Element[] = [];
  let page = 0;
  for (const piece of pieces) {
    const piecePage = 'block' in piece ? piece.block.page : piece.page;
    while (page < piecePage) {
      page++;
      for (const mark of unmatched.filter((m) => m.page === page)) elements.push({ kind: 'heading', level: mark.level, text: mark.title, page });
    }
    if ('table' in piece) elements.push(tableElement(piece.table, piece.page));
    else if (piece.block.text !== '') {
      const mark = matched.get(piece.block);
      elements.push(mark === undefined ? { kind: 'paragraph', text: piece.block.text, page: piecePage } : { kind: 'heading', level: mark.level, text: piece.block.text, page: piecePage });
    }
  }
  return elements;
}

function flatten(bookmarks: readonly Bookmark[], level: number): { title: string; page: number | null; level: number }[] {
  return bookmarks.flatMap((mark) => [{ title: mark.title, page: mark.page, level }, ...flatten(mark.children, level + 1)]);
}

function tableElement(table: Table, page: number): Element {
  const { markdown, rows } = tableMarkdown(table);
  return { kind: 'table', markdown, rows, page };
}
