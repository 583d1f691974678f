// The logical structure tree of a tagged PDF (ISO 32000-1 §14.7), read once
// for the rules that check it (PDF/UA-1 clause 7) and for any analysis that
// follows the document's reading order: every structure element with its
// type, the standard type it maps to through the RoleMap (§14.7.3), its
// parent and kids, the marked-content ids and annotations it owns. The
// tree is a client's: a cycle or a kid shared by two parents is read once,
// and the walk is bounded.
import type { PdfObjects } from '../seams/pdf-objects.js';
import { PdfDict, PdfName, PdfRef, type PdfValue } from '../untrusted/pdf-values.js';

/** ISO 32000-1 §14.8.4's standard structure types (PDF 1.7; PDF/UA-1 is based on it). */
export const STANDARD_TYPES: ReadonlySet<string> = new Set([
  'Document', 'Part', 'Art', 'Sect', 'Div', 'BlockQuote', 'Caption', 'TOC', 'TOCI', 'Index', 'NonStruct', 'Private',
  'P', 'H', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'L', 'LI', 'Lbl', 'LBody',
  'Table', 'TR', 'TH', 'TD', 'THead', 'TBody', 'TFoot',
  'Span', 'Quote', 'Note', 'Reference', 'BibEntry', 'Code', 'Link', 'Annot', 'Ruby', 'RB', 'RT', 'RP', 'Warichu', 'WT', 'WP',
  'Figure', 'Formula', 'Form',
]);

export interface StructureElement {
  readonly dict: PdfDict;
  /** /S as written. */
  readonly type: string;
  /** The standard type /S maps to (itself when standard and not remapped); undefined when the chain ends nowhere standard or loops. */
  readonly standardType: string | undefined;
  /** The RoleMap chain from /S loops back on itself. */
  readonly circularMapping: boolean;
  /** /S is a standard type that the RoleMap maps to something else. */
  readonly remapsStandardType: boolean;
  /** undefined for the kids of StructTreeRoot. */
  readonly parent: StructureElement | undefined;
  readonly kids: StructureElement[];
  /** Marked-content ids this element owns (kid integers and MCR dictionaries), with the page (and Form stream) they are on. */
  readonly contentIds: { readonly page: PdfRef | undefined; readonly stream: PdfRef | undefined; readonly mcid: number }[];
  /** Objects this element owns through OBJR kids (annotations, XObjects). */
  readonly objects: PdfRef[];
  readonly depth: number;
}

export interface StructureTree {
  /** The catalog's StructTreeRoot, when it is a dictionary. */
  readonly root: PdfDict | undefined;
  readonly roleMap: ReadonlyMap<string, string>;
  /** Every element, in document (depth-first) order. */
  readonly elements: readonly StructureElement[];
  /** "objNum gen" of each object an OBJR names → the element that owns it. */
  readonly objectOwners: ReadonlyMap<string, StructureElement>;
  /** "pageObj gen|streamObj gen|mcid" of each marked-content id the tree owns → its element. */
  readonly contentOwners: ReadonlyMap<string, StructureElement>;
  /** The element the ParentTree (§14.7.4.4) gives for a StructParent key, when it is one element. */
  parentTreeElement(key: number): StructureElement | undefined;
}

/** Elements read at most: far past any real document, bounds a hostile one. */
const MAX_ELEMENTS = 500_000;
const MAX_DEPTH = 256;
/** RoleMap hops followed at most. */
const MAX_ROLE_CHAIN = 64;

export function refKey(ref: PdfRef | undefined): string {
  return ref === undefined ? '' : `${ref.num} ${ref.gen}`;
}

export function contentKey(page: PdfRef | undefined, stream: PdfRef | undefined, mcid: number): string {
  return `${refKey(page)}|${refKey(stream)}|${mcid}`;
}

export function readStructureTree(pdf: PdfObjects): StructureTree {
  const root = pdf.dict(pdf.catalog?.get('StructTreeRoot'));
  const roleMap = new Map<string, string>();
  for (const [key, value] of pdf.dict(root?.get('RoleMap'))?.entries ?? []) {
    const target = pdf.resolve(value);
    if (target instanceof PdfName) roleMap.set(key, target.name);
  }
  const elements: StructureElement[] = [];
  const objectOwners = new Map<string, StructureElement>();
  const contentOwners = new Map<string, StructureElement>();
  const seen = new Set<PdfDict>();

  const visit = (value: PdfValue | undefined, parent: StructureElement | undefined, depth: number, page: PdfRef | undefined): void => {
    if (elements.length >= MAX_ELEMENTS || depth > MAX_DEPTH) return;
    if (value instanceof PdfRef || value instanceof PdfDict) {
      const dict = pdf.dict(value);
      if (dict === undefined || seen.has(dict)) return;
      const kind = dict.name('Type');
      if (kind === 'MCR' && parent !== undefined) {
        const mcid = pdf.number(dict.get('MCID'));
        const pg = pageRef(dict) ?? page;
        const stream = dict.get('Stm') instanceof PdfRef ? (dict.get('Stm') as PdfRef) : undefined;
        if (mcid !== undefined) addContent(parent, pg, stream, mcid);
        return;
      }
      if (kind === 'OBJR' && parent !== undefined) {
        const obj = dict.get('Obj');
        if (obj instanceof PdfRef) {
          parent.objects.push(obj);
          objectOwners.set(refKey(obj), parent);
        }
        return;
      }
      const type = pdf.name(dict.get('S'));
      if (type === undefined) return;
      seen.add(dict);
      const element: StructureElement = { dict, type, ...standardTypeOf(type, roleMap), parent, kids: [], contentIds: [], objects: [], depth };
      elements.push(element);
      parent?.kids.push(element);
      const ownPage = pageRef(dict) ?? page;
      const kids = pdf.resolve(dict.get('K'));
      for (const kid of Array.isArray(kids) ? kids : [kids]) {
        if (typeof kid === 'number') addContent(element, ownPage, undefined, kid);
        else visit(kid ?? undefined, element, depth + 1, ownPage);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, parent, depth, page);
    }
  };
  const addContent = (element: StructureElement, page: PdfRef | undefined, stream: PdfRef | undefined, mcid: number) => {
    element.contentIds.push({ page, stream, mcid });
    contentOwners.set(contentKey(page, stream, mcid), element);
  };
  const pageRef = (dict: PdfDict): PdfRef | undefined => {
    const pg = dict.get('Pg');
    return pg instanceof PdfRef ? pg : undefined;
  };

  if (root !== undefined) {
    const kids = pdf.resolve(root.get('K'));
    for (const kid of Array.isArray(kids) ? kids : [kids]) {
      if (kid instanceof PdfRef || kid instanceof PdfDict) visit(kid, undefined, 0, undefined);
    }
  }
  const byDict = new Map<PdfDict, StructureElement>(elements.map((e) => [e.dict, e]));
  let parentTree: Map<number, PdfValue> | undefined;
  const parentTreeElement = (key: number): StructureElement | undefined => {
    parentTree ??= readNumberTree(pdf, root?.get('ParentTree'));
    const dict = pdf.dict(parentTree.get(key));
    return dict === undefined ? undefined : byDict.get(dict);
  };
  return { root, roleMap, elements, objectOwners, contentOwners, parentTreeElement };
}

/** Follows the RoleMap from `type` to a standard type (§14.7.3), as veraPDF does: a mapping is followed before a standard name is taken as itself. */
export function standardTypeOf(type: string, roleMap: ReadonlyMap<string, string>): Pick<StructureElement, 'standardType' | 'circularMapping' | 'remapsStandardType'> {
  const remapsStandardType = STANDARD_TYPES.has(type) && roleMap.has(type) && roleMap.get(type) !== type;
  const visited = new Set<string>([type]);
  let current = type;
  for (let hops = 0; hops < MAX_ROLE_CHAIN; hops++) {
    const next = roleMap.get(current);
    if (next === undefined || next === current) {
      return { standardType: STANDARD_TYPES.has(current) ? current : undefined, circularMapping: false, remapsStandardType };
    }
    if (visited.has(next)) return { standardType: undefined, circularMapping: true, remapsStandardType };
    visited.add(next);
    current = next;
    if (STANDARD_TYPES.has(current) && !roleMap.has(current)) return { standardType: current, circularMapping: false, remapsStandardType };
  }
  return { standardType: undefined, circularMapping: true, remapsStandardType };
}

/** Number-tree entries (§7.9.7) read at most, and node depth: bounds for a hostile tree. */
const MAX_TREE_ENTRIES = 1_000_000;
const MAX_TREE_DEPTH = 32;

/** A number tree's entries, values unresolved. */
export function readNumberTree(pdf: PdfObjects, node: PdfValue | undefined): Map<number, PdfValue> {
  const entries = new Map<number, PdfValue>();
  const seen = new Set<PdfDict>();
  const visit = (value: PdfValue | undefined, depth: number): void => {
    const dict = pdf.dict(value);
    if (dict === undefined || seen.has(dict) || depth > MAX_TREE_DEPTH || entries.size >= MAX_TREE_ENTRIES) return;
    seen.add(dict);
    const nums = pdf.array(dict.get('Nums')) ?? [];
    for (let i = 0; i + 1 < nums.length; i += 2) {
      const key = pdf.number(nums[i]);
      if (key !== undefined) entries.set(key, nums[i + 1]!);
    }
    for (const kid of pdf.array(dict.get('Kids')) ?? []) visit(kid, depth + 1);
  };
  visit(node, 0);
  return entries;
}
