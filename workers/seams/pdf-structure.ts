// The document-level structures that page assembly (qpdf --pages, in
// workers/docops/assemble.ts) does not carry over, read from the sources
// and written into the result with pdf-lib, behind this seam (with pdf.ts,
// the only modules importing pdf-lib):
// - the outline (bookmarks): qpdf --pages drops it;
// - internal links: qpdf copies a link annotation but writes its
//   destination page as null (qpdf 11.3 and 12.2, checked here), so every
//   GoTo link would go nowhere;
// - the document information dictionary (title, author, ...).
// It also says whether a source's pages share resources, which decides
// whether qpdf --pages parses its page contents (seams/qpdf-decodes.ts).
// Page labels, form fields (clashing names renamed) and annotations are
// qpdf's part. Everything here works on page *indices*, so the sources'
// object numbers never leak into the result.
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, PDFRef, PDFStream, PDFString, type PDFObject } from '@cantoo/pdf-lib';
import { deflateWithZlib } from './pdf-deflate.js';
import './pdf-writer-speed.js';

/** A destination's view after its page: ['XYZ', 0, 792, null], ['Fit'], ... (names without the slash). */
export type DestinationView = ReadonlyArray<string | number | null>;

export interface OutlineItem {
  readonly title: string;
  /** 0-based page index the item opens, or undefined (an action other than GoTo, a broken destination). */
  readonly page: number | undefined;
  readonly view: DestinationView;
  readonly open: boolean;
  readonly children: readonly OutlineItem[];
}

/** An internal link's target: a 0-based page (undefined when it points nowhere) and the view there. */
export interface LinkTarget {
  readonly page: number | undefined;
  readonly view: DestinationView;
}

export interface DocumentInfo {
  readonly title?: string;
  readonly author?: string;
  readonly subject?: string;
  readonly keywords?: string;
  readonly creator?: string;
  readonly producer?: string;
}

export interface SourceStructure {
  readonly pageCount: number;
  readonly outline: readonly OutlineItem[];
  /** Per page, per entry of its /Annots: where an internal link goes; undefined for anything else. */
  readonly links: ReadonlyArray<ReadonlyArray<LinkTarget | undefined>>;
  readonly info: DocumentInfo;
  /** Pages or form XObjects share a resource dictionary (qpdf's test, sharedResources below). */
  readonly sharesResources: boolean;
}

/** Why a source could not be opened: the slug the task fails with. */
export class OpenFailure extends Error {
  constructor(
    readonly reason: 'password-required' | 'password-wrong' | 'unreadable',
    detail: string,
    /** pdf-lib's message, for the server's log only. */
    override readonly cause?: string,
  ) {
    super(detail);
    this.name = 'OpenFailure';
  }
}

/** Outline depth and item count read at most: a cyclic or hostile outline must end. */
const MAX_OUTLINE_ITEMS = 10_000;
const MAX_OUTLINE_DEPTH = 32;

/** How the form seam (pdf-form.ts) loads: ready for an incremental update, XFA kept until it decides. */
export interface OpenSettings {
  readonly forIncrementalUpdate?: boolean;
  readonly preserveXFA?: boolean;
}

/** Loads a source with pdf-lib; throws OpenFailure with the slug the task fails with. */
export async function openSource(bytes: Uint8Array, password: string | undefined, settings: OpenSettings = {}): Promise<PDFDocument> {
  try {
    // updateMetadata false: reading must not stamp our producer on the source.
    const doc = await PDFDocument.load(bytes, { password, updateMetadata: false, parseSpeed: Number.POSITIVE_INFINITY, ...settings });
    // Streams added to a loaded document (fill-form's embedded fallback font
    // and its CMap, appearance streams) deflate with node:zlib as a new
    // document's do (pdf-deflate.ts): fflate was 3% of a fill-form's samples.
    deflateWithZlib(doc.context);
    return doc;
  } catch (error) {
    const name = (error as Error).constructor.name;
    // Encrypted with an empty user password (only an owner password set): every
    // reader opens it without asking, so do we (camelot's birdisland.pdf is one).
    if (name === 'EncryptedPDFError' && password === undefined) return openSource(bytes, '', settings);
    if (name === 'EncryptedPDFError' || (password === '' && /password/i.test((error as Error).message))) {
      throw new OpenFailure('password-required', 'is encrypted and needs its password to open');
    }
    if (/password/i.test((error as Error).message)) throw new OpenFailure('password-wrong', 'is encrypted and the password given does not open it.');
    throw new OpenFailure('unreadable', UNREADABLE, (error as Error).message.slice(0, 300));
  }
}

export async function readStructure(bytes: Uint8Array, password: string | undefined): Promise<SourceStructure> {
  const doc = await openSource(bytes, password);
  try {
    return structureOf(doc);
  } catch (error) {
    // pdf-lib loads leniently and fails later, on the first structure it
    // cannot follow (a catalog without /Pages throws a TypeError): the file's fault.
    throw new OpenFailure('unreadable', UNREADABLE, (error as Error).message.slice(0, 300));
  }
}

const UNREADABLE = 'cannot be read as a PDF: its cross-reference table, trailer or page tree is damaged or missing.';

function structureOf(doc: PDFDocument): SourceStructure {
  const pages = doc.getPages();
  const indexOf = new Map<string, number>(pages.map((page, i) => [page.ref.toString(), i]));
  const resolveDest = destinationResolver(doc, indexOf);
  const links = pages.map((page) => {
    const annots = page.node.Annots();
    if (annots === undefined) return [];
    return annots.asArray().map((entry) => {
      const annot = doc.context.lookup(entry);
      if (!(annot instanceof PDFDict) || annot.get(PDFName.of('Subtype'))?.toString() !== '/Link') return undefined;
      return resolveDest(linkDestination(doc, annot));
    });
  });
  return { pageCount: pages.length, outline: readOutline(doc, resolveDest), links, info: readInfo(doc), sharesResources: sharedResources(doc) };
}

/**
 * qpdf's own test for `--remove-unreferenced-resources=auto`, the default
 * under --pages (QPDFJob::shouldRemoveUnreferencedResources, qpdf 12.2),
 * on the same objects: a /Resources on an inner node of the page tree, or
 * one resource dictionary, or one /XObject dictionary, reached from two
 * pages or form XObjects. When it holds, qpdf parses every page's content
 * to find the resources it does not use (a 256 MiB content stream: 3.8 s
 * of CPU, against 58 ms when not).
 */
function sharedResources(doc: PDFDocument): boolean {
  const context = doc.context;
  const seenNodes = new Set<PDFObject>();
  const seenResources = new Set<string>();
  const sharedRef = (entry: PDFObject | undefined): boolean => {
    if (!(entry instanceof PDFRef)) return false;
    if (seenResources.has(entry.tag)) return true;
    seenResources.add(entry.tag);
    return false;
  };
  const queue: Array<PDFObject | undefined> = [doc.catalog.get(PDFName.of('Pages'))];
  for (let next = 0; next < queue.length; next++) {
    const node = context.lookup(queue[next]);
    const dict = node instanceof PDFStream ? node.dict : node instanceof PDFDict ? node : undefined;
    if (dict === undefined || seenNodes.has(dict)) continue;
    seenNodes.add(dict);
    const kids = context.lookup(dict.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) {
      if (dict.has(PDFName.of('Resources'))) return true;
      queue.push(...kids.asArray());
      continue;
    }
    const resourcesEntry = dict.get(PDFName.of('Resources'));
    if (sharedRef(resourcesEntry)) return true;
    const resources = context.lookup(resourcesEntry);
    const xobjectsEntry = resources instanceof PDFDict ? resources.get(PDFName.of('XObject')) : undefined;
    if (sharedRef(xobjectsEntry)) return true;
    const xobjects = context.lookup(xobjectsEntry);
    if (!(xobjects instanceof PDFDict)) continue;
    for (const [, entry] of xobjects.entries()) {
      const xobject = context.lookup(entry);
      if (xobject instanceof PDFStream && xobject.dict.get(PDFName.of('Subtype')) === PDFName.of('Form')) queue.push(entry);
    }
  }
  return false;
}

function linkDestination(doc: PDFDocument, holder: PDFDict): PDFObject | undefined {
  const dest = holder.get(PDFName.of('Dest'));
  if (dest !== undefined) return doc.context.lookup(dest);
  const action = doc.context.lookup(holder.get(PDFName.of('A')));
  if (!(action instanceof PDFDict) || action.get(PDFName.of('S'))?.toString() !== '/GoTo') return undefined;
  return doc.context.lookup(action.get(PDFName.of('D')));
}

/** Explicit destinations, and named ones through /Dests or the /Names /Dests tree (ISO 32000-1 12.3.2). */
function destinationResolver(doc: PDFDocument, indexOf: ReadonlyMap<string, number>): (dest: PDFObject | undefined) => { page: number | undefined; view: DestinationView } | undefined {
  const named = (key: string): PDFObject | undefined => {
    const dests = doc.context.lookup(doc.catalog.get(PDFName.of('Dests')));
    if (dests instanceof PDFDict) {
      const found = doc.context.lookup(dests.get(PDFName.of(key)));
      if (found !== undefined) return found;
    }
    const names = doc.context.lookup(doc.catalog.get(PDFName.of('Names')));
    if (!(names instanceof PDFDict)) return undefined;
    return findInNameTree(doc, doc.context.lookup(names.get(PDFName.of('Dests'))), key, 0);
  };
  const resolve = (dest: PDFObject | undefined, depth: number): { page: number | undefined; view: DestinationView } | undefined => {
    if (dest === undefined || depth > 2) return undefined;
    if (dest instanceof PDFName) return resolve(named(dest.decodeText()), depth + 1);
    if (dest instanceof PDFString || dest instanceof PDFHexString) return resolve(named(dest.decodeText()), depth + 1);
    if (dest instanceof PDFDict) return resolve(doc.context.lookup(dest.get(PDFName.of('D'))), depth + 1);
    if (!(dest instanceof PDFArray) || dest.size() === 0) return undefined;
    const target = dest.get(0);
    const page = target instanceof PDFRef ? indexOf.get(target.toString()) : undefined;
    const view = dest.asArray().slice(1).map(viewValue);
    return { page, view };
  };
  return (dest) => resolve(dest, 0);
}

function findInNameTree(doc: PDFDocument, node: PDFObject | undefined, key: string, depth: number): PDFObject | undefined {
  if (!(node instanceof PDFDict) || depth > MAX_OUTLINE_DEPTH) return undefined;
  const names = doc.context.lookup(node.get(PDFName.of('Names')));
  if (names instanceof PDFArray) {
    for (let i = 0; i + 1 < names.size(); i += 2) {
      const name = doc.context.lookup(names.get(i));
      if ((name instanceof PDFString || name instanceof PDFHexString) && name.decodeText() === key) return doc.context.lookup(names.get(i + 1));
    }
  }
  const kids = doc.context.lookup(node.get(PDFName.of('Kids')));
  if (!(kids instanceof PDFArray)) return undefined;
  for (const kid of kids.asArray()) {
    const found = findInNameTree(doc, doc.context.lookup(kid), key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function viewValue(value: PDFObject): string | number | null {
  if (value instanceof PDFNumber) return value.asNumber();
  if (value instanceof PDFName) return value.decodeText();
  return null;
}

function readOutline(doc: PDFDocument, resolveDest: ReturnType<typeof destinationResolver>): OutlineItem[] {
  const root = doc.context.lookup(doc.catalog.get(PDFName.of('Outlines')));
  if (!(root instanceof PDFDict)) return [];
  let budget = MAX_OUTLINE_ITEMS;
  const seen = new Set<PDFObject>();
  const level = (parent: PDFDict, depth: number): OutlineItem[] => {
    const items: OutlineItem[] = [];
    if (depth > MAX_OUTLINE_DEPTH) return items;
    let node = doc.context.lookup(parent.get(PDFName.of('First')));
    while (node instanceof PDFDict && !seen.has(node) && budget-- > 0) {
      seen.add(node);
      const title = doc.context.lookup(node.get(PDFName.of('Title')));
      const target = resolveDest(linkDestination(doc, node));
      const count = doc.context.lookup(node.get(PDFName.of('Count')));
      items.push({
        title: title instanceof PDFString || title instanceof PDFHexString ? title.decodeText() : '',
        page: target?.page,
        view: target?.view ?? ['Fit'],
        open: !(count instanceof PDFNumber && count.asNumber() < 0),
        children: level(node, depth + 1),
      });
      node = doc.context.lookup(node.get(PDFName.of('Next')));
    }
    return items;
  };
  return level(root, 0);
}

const INFO_KEYS = { title: 'Title', author: 'Author', subject: 'Subject', keywords: 'Keywords', creator: 'Creator', producer: 'Producer' } as const;

function readInfo(doc: PDFDocument): DocumentInfo {
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  const out: Record<string, string> = {};
  if (!(info instanceof PDFDict)) return out;
  for (const [key, name] of Object.entries(INFO_KEYS)) {
    const value = doc.context.lookup(info.get(PDFName.of(name)));
    if (value instanceof PDFString || value instanceof PDFHexString) out[key] = value.decodeText();
  }
  return out;
}

/** What to write into the assembled document. */
export interface Finish {
  /** The outline, with `page` as indices of the assembled document; items without a page keep only their title. */
  readonly outline: readonly OutlineItem[];
  /** Per page of the assembled document, per /Annots entry: where an internal link now goes, null to drop the link (its target is not in the result), undefined to leave it. */
  readonly links: ReadonlyArray<ReadonlyArray<LinkTarget | null | undefined>>;
  readonly info: DocumentInfo;
}

export async function finishDocument(bytes: Uint8Array, finish: Finish): Promise<Uint8Array> {
  const doc = await openSource(bytes, undefined);
  const pages = doc.getPages();
  const context = doc.context;

  finish.links.forEach((targets, pageIndex) => {
    const page = pages[pageIndex];
    const annots = page?.node.Annots();
    if (page === undefined || annots === undefined) return;
    const drop: number[] = [];
    targets.forEach((target, i) => {
      if (target === undefined) return;
      if (target === null) return void drop.push(i);
      const annot = context.lookup(annots.get(i));
      if (!(annot instanceof PDFDict)) return;
      const page = target.page === undefined ? undefined : pages[target.page];
      if (page === undefined) return void drop.push(i);
      annot.delete(PDFName.of('A'));
      annot.set(PDFName.of('Dest'), destination(doc, page.ref, target.view));
    });
    for (const i of drop.reverse()) annots.remove(i);
  });

  doc.catalog.delete(PDFName.of('Outlines'));
  if (finish.outline.length > 0) writeOutline(doc, finish.outline);

  const info = context.obj({}) as PDFDict;
  for (const [key, name] of Object.entries(INFO_KEYS)) {
    const value = finish.info[key as keyof DocumentInfo];
    if (value !== undefined) info.set(PDFName.of(name), PDFHexString.fromText(value));
  }
  context.trailerInfo.Info = context.register(info);
  return doc.save({ useObjectStreams: true, objectsPerTick: Number.POSITIVE_INFINITY, updateFieldAppearances: false });
}

function destination(doc: PDFDocument, page: PDFRef, view: DestinationView): PDFArray {
  const parts: PDFObject[] = [page, ...view.map((v) => (typeof v === 'string' ? PDFName.of(v) : v === null ? PDFNull : PDFNumber.of(v)))];
  if (parts.length === 1) parts.push(PDFName.of('Fit'));
  return doc.context.obj(parts);
}

function writeOutline(doc: PDFDocument, items: readonly OutlineItem[]): void {
  const context = doc.context;
  const pages = doc.getPages();
  const root = context.nextRef();
  const write = (level: readonly OutlineItem[], parent: PDFRef): { first: PDFRef; last: PDFRef; visible: number } => {
    const refs = level.map(() => context.nextRef());
    let visible = level.length;
    level.forEach((item, i) => {
      const dict = context.obj({ Title: PDFHexString.fromText(item.title), Parent: parent }) as PDFDict;
      const page = item.page === undefined ? undefined : pages[item.page];
      if (page !== undefined) {
        dict.set(PDFName.of('Dest'), destination(doc, page.ref, item.view));
      }
      if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1] as PDFRef);
      if (i < level.length - 1) dict.set(PDFName.of('Next'), refs[i + 1] as PDFRef);
      if (item.children.length > 0) {
        const kids = write(item.children, refs[i] as PDFRef);
        dict.set(PDFName.of('First'), kids.first);
        dict.set(PDFName.of('Last'), kids.last);
        // ISO 32000-1 table 153: positive when open (the visible descendants), negative when closed.
        dict.set(PDFName.of('Count'), PDFNumber.of(item.open ? kids.visible : -kids.visible));
        if (item.open) visible += kids.visible;
      }
      context.assign(refs[i] as PDFRef, dict);
    });
    return { first: refs[0] as PDFRef, last: refs[refs.length - 1] as PDFRef, visible };
  };
  const top = write(items, root);
  context.assign(root, context.obj({ Type: 'Outlines', First: top.first, Last: top.last, Count: top.visible }));
  doc.catalog.set(PDFName.of('Outlines'), root);
}
