// Carrying a source's outline and internal links into an assembled document
// whose pages are a selection of the source's (split) or of several
// sources' (merge). Pure functions over page indices: a page map says where
// a source page landed, if it did.
import { OpenFailure, readStructure, type LinkTarget, type OutlineItem, type SourceStructure } from '../seams/pdf-structure.js';
import { TaskFailure } from '../task/json-task.js';
import { openFailure } from '../task/open-failure.js';

/** Where each source page landed in the output (its first occurrence), by 0-based index. */
export type PageMap = ReadonlyMap<number, number>;

/** `selection` (0-based source pages, in output order) placed from output page `offset` on. */
export function pageMap(selection: readonly number[], offset: number): PageMap {
  const map = new Map<number, number>();
  selection.forEach((page, i) => {
    if (!map.has(page)) map.set(page, offset + i);
  });
  return map;
}

/**
 * The outline items that point into the output, re-pointed. An item whose
 * page is not in the output is dropped, and its children that are move up
 * in its place; an item that pointed nowhere to begin with (an action
 * other than GoTo) is kept when it has children that stay, as a heading.
 */
export function mapOutline(items: readonly OutlineItem[], map: PageMap): OutlineItem[] {
  const out: OutlineItem[] = [];
  for (const item of items) {
    const children = mapOutline(item.children, map);
    const page = item.page === undefined ? undefined : map.get(item.page);
    if (page !== undefined || (item.page === undefined && children.length > 0)) out.push({ ...item, page, children });
    else out.push(...children);
  }
  return out;
}

/** The output pages' link fixes: per output page, per /Annots entry, the new target, null to drop, undefined to leave. */
export function mapLinks(links: SourceStructure['links'], selection: readonly number[], map: PageMap): Array<Array<LinkTarget | null | undefined>> {
  return selection.map((page) =>
    (links[page] ?? []).map((target) => {
      if (target === undefined) return undefined;
      const landed = target.page === undefined ? undefined : map.get(target.page);
      return landed === undefined ? null : { page: landed, view: target.view };
    }),
  );
}

/** Opens a source for its structure; a password problem or an unreadable file is the client's 422, naming the member. */
export async function openSource(bytes: Uint8Array, password: string | undefined, field: string, passwordField: string): Promise<SourceStructure> {
  let structure: SourceStructure;
  try {
    structure = await readStructure(bytes, password);
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw openFailure(error, field, passwordField);
  }
  if (structure.pageCount === 0) throw TaskFailure.content('invalid-pdf-data', field, 'INVALID_PDF', 'has no pages (or its page tree cannot be read).');
  return structure;
}

