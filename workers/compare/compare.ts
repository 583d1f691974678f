// compareDocuments(a, b, options): the comparison both APIs serve
// (POST /v1/compare and the render API's /api/v1/compare call it from their
// own tasks). Pages are read one at a time and kept only as words and image
// marks. Pages are aligned first (an edit distance over page fingerprints,
// so an inserted page does not shift every later one into a change); the
// stretches that differ are then compared word by word:
// - `text`: a word diff per page pair, words in content order, as drawn;
// - `semantic`: the stretch's words as one sequence, normalised
//   (tokens.ts), so text that re-flows across lines or pages is no change.
import { layoutPage } from '../read/layout/page-layout.js';
import { openReader, type RequestFields } from '../read/reader.js';
import { WorkBudget } from '../read/request.js';
import type { ReaderDocument } from '../read/types.js';
import { TaskFailure } from '../task/json-task.js';
import { imageChanges, wordChanges, type Change } from './changes.js';
import { pageImages, type ImageMark } from './images.js';
import { alignPages } from './page-alignment.js';
import { pairPages, type PagePair } from './pairing.js';
import { MAX_GRAPH } from './sequence-diff.js';
import { semanticTokens, textTokens, type Token } from './tokens.js';

export type CompareMode = 'text' | 'semantic';

export interface CompareInput {
  readonly bytes: Uint8Array;
  readonly password?: string;
  /** The request's field names, for errors[] (`pdf_a` / `password_a`, ...). */
  readonly fields: RequestFields;
}

export interface CompareOptions {
  readonly mode: CompareMode;
  readonly ignoreFormatting: boolean;
  /**
   * The 1-based pages to compare in a document of `pageCount` pages
   * (default all); may be empty (a range past the end of one document: its
   * pages all count as added or removed); throws TaskFailure for a
   * selection that is wrong in itself.
   */
  readonly select?: (pageCount: number, side: 'a' | 'b') => readonly number[];
  /** The request field `select` reads, named when it selects no page of either document. */
  readonly selectionField?: string;
  /** Pages each document may contribute (PLATEN_MAX_PAGES). */
  readonly maxPages: number;
  /** Drawing operators plus text runs each document may have read (PLATEN_READ_WORK_BUDGET). */
  readonly workBudget: number;
}

export interface ComparisonChange {
  readonly type: Change['type'];
  readonly page: number;
  readonly before: string;
  readonly after: string;
  readonly position: { readonly x: number; readonly y: number };
  readonly text?: string;
}

export interface Comparison {
  readonly summary: {
    readonly pages_changed: number;
    readonly text_additions: number;
    readonly text_deletions: number;
    readonly image_changes: number;
  };
  readonly changes: readonly ComparisonChange[];
  /** True when `changes` was cut at MAX_CHANGES (the summary still counts every change). */
  readonly changes_truncated: boolean;
}

/** Changes listed in one response; the summary counts all of them. */
export const MAX_CHANGES = 5000;

export interface PageModel {
  readonly number: number;
  readonly tokens: readonly Token[];
  readonly images: readonly ImageMark[];
  /** Equal fingerprints: nothing to report between the two pages. */
  readonly fingerprint: string;
}

export async function compareDocuments(a: CompareInput, b: CompareInput, options: CompareOptions): Promise<Comparison> {
  const pagesA = await readDocument(a, 'a', options);
  const pagesB = await readDocument(b, 'b', options);
  if (pagesA.length === 0 && pagesB.length === 0 && options.select) {
    const field = options.selectionField ?? 'pages';
    throw TaskFailure.field(field, 'OUT_OF_RANGE', 'the selection holds no page of either document');
  }
  const changes: Change[] = [];
  const formatting = !options.ignoreFormatting;
  for (const run of alignPages(
    pagesA.map((p) => p.fingerprint),
    pagesB.map((p) => p.fingerprint),
  )) {
    if (run.equal) continue;
    const before = pagesA.slice(run.aStart, run.aEnd);
    const after = pagesB.slice(run.bStart, run.bEnd);
    const pairs = pairPages(before, after);
    if (options.mode === 'semantic') changes.push(...semanticStretch(before, after, pairs, formatting));
    else changes.push(...textStretch(pairs, formatting));
  }
  return summarise(changes);
}

async function readDocument(input: CompareInput, side: 'a' | 'b', options: CompareOptions): Promise<PageModel[]> {
  // openReader may detach the bytes it is given (pdf.js transfers them).
  const document = await openReader(input.bytes, input.password, input.fields);
  try {
    const numbers = options.select ? options.select(document.pageCount, side) : Array.from({ length: document.pageCount }, (_, i) => i + 1);
    if (numbers.length > options.maxPages) {
      throw TaskFailure.field(input.fields.data, 'TOO_LARGE', `Only ${options.maxPages} pages of a document are compared (PLATEN_MAX_PAGES); select fewer pages.`);
    }
    const budget = new WorkBudget(options.workBudget, input.fields.data);
    const pages: PageModel[] = [];
    for (const number of numbers) pages.push(await readPage(document, number, options, budget));
    return pages;
  } finally {
    await document.close();
  }
}

async function readPage(document: ReaderDocument, number: number, options: CompareOptions, budget: WorkBudget): Promise<PageModel> {
  const page = await document.page(number);
  try {
    // Images need the operator list anyway, so styles cost little more here.
    budget.spend((await page.operators()).fnArray.length, number);
    const items = await page.text({ styles: !options.ignoreFormatting });
    budget.spend(items.length, number);
    const tokens =
      options.mode === 'semantic'
        ? semanticTokens(
            layoutPage(items).flatMap((block) => block.lines.map((line) => line.items)),
            number,
          )
        : textTokens(items, number);
    const images = await pageImages(page);
    const words = tokens.map((t) => (options.ignoreFormatting ? t.key : `${t.key}\u0002${t.font}\u0002${t.size}\u0002${t.color}`)).join('\u0001');
    const pictures = images.map((i) => `${i.hash}@${i.x},${i.y},${i.width},${i.height}`).join('\u0001');
    return { number, tokens, images, fingerprint: `${words}\u0000${pictures}` };
  } finally {
    page.close();
  }
}

function textStretch(pairs: readonly PagePair[], formatting: boolean): Change[] {
  const changes: Change[] = [];
  for (const { a, b } of pairs) {
    if (a && b) changes.push(...wordChanges(a.tokens, b.tokens, formatting), ...imageChanges(a.images, a.number, b.images, b.number));
    else if (a) changes.push(pageChange('page_removed', a));
    else if (b) changes.push(pageChange('page_added', b));
  }
  return changes;
}

/**
 * The stretch's words compared as one sequence (re-flow across its pages is
 * no change). A page of one side that no page of the other pairs with, and
 * none of whose words the other side has, is reported as a page added or
 * removed instead of as its words. Too large a stretch to diff at once
 * (MAX_GRAPH) is compared pair by pair.
 */
function semanticStretch(before: readonly PageModel[], after: readonly PageModel[], pairs: readonly PagePair[], formatting: boolean): Change[] {
  const a = before.flatMap((p) => p.tokens);
  const b = after.flatMap((p) => p.tokens);
  if (a.length * b.length > MAX_GRAPH) return textStretch(pairs, formatting);
  const words = wordChanges(a, b, formatting);
  const changes: Change[] = [];
  const whole = new Set<PageModel>();
  for (const { a: pageA, b: pageB } of pairs) {
    if (pageA && pageB) changes.push(...imageChanges(pageA.images, pageA.number, pageB.images, pageB.number));
    const lone = pageA ?? pageB;
    if ((pageA === undefined || pageB === undefined) && lone) {
      const side = pageA ? 'deletion' : 'addition';
      const own = words.filter((c) => c.page === lone.number && (c.type === side || c.type === 'modification'));
      const count = own.reduce((n, c) => n + ((side === 'addition' ? c.wordsAdded : c.wordsRemoved) ?? 0), 0);
      if (count === lone.tokens.length && own.every((c) => c.type === side)) {
        whole.add(lone);
        changes.push(pageChange(pageA ? 'page_removed' : 'page_added', lone));
      } else changes.push(...imageChanges(pageA?.images ?? [], lone.number, pageB?.images ?? [], lone.number));
    }
  }
  const wholeA = new Set([...whole].filter((p) => before.includes(p)).map((p) => p.number));
  const wholeB = new Set([...whole].filter((p) => after.includes(p)).map((p) => p.number));
  const kept = words.filter((c) => !((c.type === 'deletion' && wholeA.has(c.page)) || (c.type === 'addition' && wholeB.has(c.page))));
  return [...kept, ...changes];
}

function pageChange(type: 'page_added' | 'page_removed', page: PageModel): Change {
  const text = page.tokens.slice(0, 40).map((t) => t.text).join(' ');
  const summary = `page ${page.number}: ${page.tokens.length} words, ${page.images.length} images${text ? `: ${text}${page.tokens.length > 40 ? ' …' : ''}` : ''}`;
  return {
    type,
    page: page.number,
    before: type === 'page_removed' ? summary : '',
    after: type === 'page_added' ? summary : '',
    position: { x: 0, y: 0 },
    wordsRemoved: type === 'page_removed' ? page.tokens.length : 0,
    wordsAdded: type === 'page_added' ? page.tokens.length : 0,
  };
}

function summarise(changes: readonly Change[]): Comparison {
  let additions = 0;
  let deletions = 0;
  let images = 0;
  const pages = new Set<number>();
  for (const change of changes) {
    additions += change.type === 'page_added' ? 0 : (change.wordsAdded ?? 0);
    deletions += change.type === 'page_removed' ? 0 : (change.wordsRemoved ?? 0);
    if (change.type.startsWith('image_')) images++;
    pages.add(change.page);
  }
  const listed = changes.slice(0, MAX_CHANGES).map(({ type, page, before, after, position, text }) =>
    text === undefined ? { type, page, before, after, position } : { type, page, before, after, position, text },
  );
  return {
    summary: { pages_changed: pages.size, text_additions: additions, text_deletions: deletions, image_changes: images },
    changes: listed,
    changes_truncated: changes.length > MAX_CHANGES,
  };
}
