// The hidden-text walk over a document's pages with the reader, shared by
// forensic-analyze and ai-certify (whose "no hidden content" check is this
// walk's result). Pages are read one at a time and closed; the walk stops
// at the page limit (PLATEN_MAX_PAGES) or the work budget
// (PLATEN_READ_WORK_BUDGET) and says how far it got, rather than failing:
// a forensic report on the first 2,000 pages beats none.
import type { ReadOptions } from '../../protocol.js';
import type { ReaderDocument, ReaderPage, TextItem } from '../../read/types.js';
import type { HiddenEntry } from './findings.js';
import { hiddenOnPage, type HiddenKind } from './hidden-text.js';

export interface PageScan {
  readonly hidden: HiddenEntry[];
  readonly ocrPages: number[];
  /** Pages read (1..pagesRead); fewer than the document has when a limit stopped the walk. */
  readonly pagesRead: number;
}

const SAMPLE = 200;

/** Reads each page's styled text and operators, hands them to `visit` too (ai-certify reads more from the same page). */
export async function scanPages(
  document: ReaderDocument,
  options: ReadOptions,
  visit?: (page: ReaderPage, items: readonly TextItem[]) => Promise<void>,
): Promise<PageScan> {
  const hidden: HiddenEntry[] = [];
  const ocrPages: number[] = [];
  let spent = 0;
  let pagesRead = 0;
  const last = Math.min(document.pageCount, options.maxPages);
  for (let number = 1; number <= last; number++) {
    const page = await document.page(number);
    try {
      const operators = await page.operators();
      const items = await page.text({ styles: true });
      spent += items.length + operators.fnArray.length;
      const found = hiddenOnPage(items, operators, page.size);
      const byKind = new Map<HiddenKind, string[]>();
      for (const run of found.runs) byKind.set(run.kind, [...(byKind.get(run.kind) ?? []), run.text]);
      for (const [kind, texts] of byKind) {
        const text = texts.join(' ').replace(/\s+/g, ' ').trim();
        hidden.push({ page: number, kind, characters: texts.reduce((sum, one) => sum + one.length, 0), sample: text.slice(0, SAMPLE) });
      }
      if (found.ocrCharacters > 0) ocrPages.push(number);
      if (visit !== undefined) await visit(page, items);
    } finally {
      page.close();
    }
    pagesRead = number;
    if (spent > options.workBudget) break;
  }
  return { hidden, ocrPages, pagesRead };
}
