// The document outline (bookmarks) as a tree of {title, page, children}.
// Bounded: an outline can be as large as the file allows and may even loop
// in a broken file (pdf.js stops loops); past MAX_BOOKMARKS items or
// MAX_DEPTH levels the rest is left out.
import type { PdfDocument } from '../seams/pdfjs.js';
import type { Bookmark } from './types.js';

const MAX_BOOKMARKS = 10_000;
const MAX_DEPTH = 32;

interface RawOutlineItem {
  readonly title: string;
  readonly dest: string | unknown[] | null;
  readonly items: readonly RawOutlineItem[];
}

export async function bookmarks(document: PdfDocument): Promise<Bookmark[]> {
  const outline = (await document.getOutline()) as RawOutlineItem[] | null;
  if (outline === null) return [];
  const budget = { left: MAX_BOOKMARKS };
  return convert(document, outline, 1, budget);
}

async function convert(document: PdfDocument, items: readonly RawOutlineItem[], depth: number, budget: { left: number }): Promise<Bookmark[]> {
  const result: Bookmark[] = [];
  for (const item of items) {
    if (budget.left <= 0) break;
    budget.left--;
    const children = depth < MAX_DEPTH && item.items.length > 0 ? await convert(document, item.items, depth + 1, budget) : [];
    result.push({ title: item.title.replace(/[\u0000-\u001f]/g, ' ').trim(), page: await pageOf(document, item.dest), children });
  }
  return result;
}

async function pageOf(document: PdfDocument, dest: string | unknown[] | null): Promise<number | null> {
  try {
    const explicit = typeof dest === 'string' ? await document.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || explicit.length === 0) return null;
    const target = explicit[0];
    if (Number.isInteger(target)) return (target as number) + 1;
    if (target !== null && typeof target === 'object' && 'num' in target) {
      return (await document.getPageIndex(target as Parameters<PdfDocument['getPageIndex']>[0])) + 1;
    }
    return null;
  } catch {
    // A destination naming an object that is not a page: pdf.js rejects; the bookmark stays, without a page.
    return null;
  }
}
