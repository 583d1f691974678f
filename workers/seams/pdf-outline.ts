// Writes a rendered document's outline (ISO 32000-1 §12.3.3: the bookmarks
// panel) from its headings, as Chromium writes one from a page's headings:
// each entry's title is the heading's text and its destination the heading's
// first line (/XYZ at its top, zoom unchanged). Levels arrive without skips
// (the render engine's headings.ts), so an entry of level n nests under the
// last entry of level n-1. Every entry is open: /Count is its number of
// descendants. pdf.ts calls this from save(); no pdf-lib type crosses here.
import { PDFHexString, PDFName, PDFNumber, PDFNull, type PDFDict, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';

export interface OutlineEntry {
  /** 1 for a top-level entry; at most one more than the entry before it. */
  readonly level: number;
  readonly title: string;
  /** Page index. */
  readonly page: number;
  /** PDF y (from the page's bottom) of the heading's top. */
  readonly y: number;
}

interface Item {
  readonly ref: PDFRef;
  readonly dict: PDFDict;
  readonly kids: Item[];
}

/** Writes the outline into `doc` and opens the panel (/PageMode /UseOutlines). Call after every page is added; no entries, no outline. */
export function writeOutline(doc: PDFDocument, entries: readonly OutlineEntry[], pages: readonly PDFRef[]): void {
  if (entries.length === 0) return;
  const context = doc.context;
  const rootRef = context.nextRef();
  const root: Item = { ref: rootRef, dict: context.obj({ Type: 'Outlines' }), kids: [] };
  // The open item of each level: path[0] the root, path[n] the last entry of level n.
  const path: Item[] = [root];
  for (const entry of entries) {
    const parent = path[Math.min(entry.level - 1, path.length - 1)] as Item;
    const dict = context.obj({});
    dict.set(PDFName.of('Title'), PDFHexString.fromText(entry.title));
    dict.set(PDFName.of('Parent'), parent.ref);
    dict.set(PDFName.of('Dest'), context.obj([pages[entry.page] as PDFRef, PDFName.of('XYZ'), PDFNull, PDFNumber.of(Math.round(entry.y * 100) / 100), PDFNull]));
    const item: Item = { ref: context.nextRef(), dict, kids: [] };
    parent.kids.push(item);
    path.length = Math.min(entry.level, path.length);
    path.push(item);
  }
  link(root);
  context.assign(rootRef, root.dict);
  doc.catalog.set(PDFName.of('Outlines'), rootRef);
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));

  /** Sets First/Last/Count of `item` and Prev/Next of its kids, assigns the kids; returns the item's descendant count. */
  function link(item: Item): number {
    let count = 0;
    item.kids.forEach((kid, index) => {
      const before = item.kids[index - 1];
      const after = item.kids[index + 1];
      if (before !== undefined) kid.dict.set(PDFName.of('Prev'), before.ref);
      if (after !== undefined) kid.dict.set(PDFName.of('Next'), after.ref);
      count += 1 + link(kid);
      context.assign(kid.ref, kid.dict);
    });
    const first = item.kids[0];
    const last = item.kids[item.kids.length - 1];
    if (first !== undefined && last !== undefined) {
      item.dict.set(PDFName.of('First'), first.ref);
      item.dict.set(PDFName.of('Last'), last.ref);
      item.dict.set(PDFName.of('Count'), PDFNumber.of(count));
    }
    return count;
  }
}
