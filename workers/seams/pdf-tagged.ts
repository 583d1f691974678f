// Writes a tagged PDF's logical structure (ISO 32000-1 §14.7-14.8, as PDF/UA-1
// asks of it) into a pdf-lib document: the StructTreeRoot and its elements,
// the ParentTree that maps each page's MCIDs and each link annotation back to
// its element, /StructParents and /Tabs /S on the pages, /StructParent and
// /Contents on link annotations, /MarkInfo, and the XMP packet with dc:title
// and pdfuaid:part 1. The render engine hands a neutral tree (no pdf-lib type
// crosses this seam); pdf.ts calls this from save().
import { PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFDocument } from '@cantoo/pdf-lib';
import { packObjects } from './pdf-packed-streams.js';
import { SerializedObject } from './pdf-serialized.js';
import { SyntaxBytes } from './pdf-syntax-bytes.js';

/** A marked-content sequence on another page than its element's `page`: `mcid` in that page's content stream. */
export interface ContentKid<Page> {
  readonly page: Page;
  readonly mcid: number;
}

/** A link annotation of a page, by its index among the page's links (PageContent.links). */
export interface AnnotationKid<Page> {
  readonly page: Page;
  readonly link: number;
}

/**
 * A structure element. `role` is a standard structure type (no RoleMap is
 * written). `Page` is whatever the engine knows a page by (its canvas): the
 * tree crosses the seam as the engine built it, and StructureTree.pageIndex
 * numbers its pages.
 */
export interface StructureNode<Page> {
  readonly role: string;
  /** A number is an MCID on the element's `page`. */
  readonly kids: readonly Kid<Page>[];
  /** The page of its first marked content (/Pg). */
  readonly page?: Page | undefined;
  /** Alternate text (Figure); also the /Contents of the link annotations a Link owns. */
  readonly alt?: string | undefined;
  /** Table attributes (§14.8.5.7): a header cell's scope, a cell's column span. */
  readonly scope?: 'Column' | 'Row' | undefined;
  readonly colSpan?: number | undefined;
  /** Layout attribute (§14.8.5.4.3) of a Figure: its box on its page (x1 y1 x2 y2, default user space). */
  readonly bbox?: readonly [number, number, number, number] | undefined;
}

export interface StructureTree<Page = object> {
  /** The Document element. */
  readonly root: StructureNode<Page>;
  /** The index of a page among the document's pages. */
  pageIndex(page: Page): number;
  /** The file claims PDF/UA-1 (ISO 14289-1 §5: pdfuaid:part in its XMP); otherwise it is a tagged PDF that claims nothing. */
  readonly pdfUa: boolean;
}

/** Pages and their link annotations as the document wrote them, in page order. */
export interface TaggedPages {
  readonly pages: readonly PDFRef[];
  readonly annotations: readonly (readonly PDFRef[])[];
  /** The file is saved with object streams: the structure is written packed in its own (pdf-packed-streams.ts). */
  readonly objectStreams: boolean;
}

/**
 * Elements that are nothing but their text: one that drew nothing (an
 * add_text of newlines only) is not written, as a reader would announce an
 * empty paragraph. Empty table cells are written, holding their place.
 */
const TEXT_BLOCKS: ReadonlySet<string> = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

type Kid<Page> = StructureNode<Page> | number | ContentKid<Page> | AnnotationKid<Page>;
const isNode = <Page>(kid: Exclude<Kid<Page>, number>): kid is StructureNode<Page> => 'role' in kid;
const written = <Page>(node: StructureNode<Page>): boolean => node.kids.length > 0 || !TEXT_BLOCKS.has(node.role);

/**
 * Writes the structure into `doc`. Call once, after every page is added.
 * The StructTreeRoot, the elements, the ParentTree and its page arrays are
 * written as bytes (pdf-syntax-bytes.ts), numbered contiguously: packed
 * into object streams of our own when the file has object streams and they
 * are many (pdf-packed-streams.ts), one serialized object each otherwise
 * (pdf-serialized.ts), which pdf-lib packs with its own or, without object
 * streams, writes one by one. A data table has an element per cell, so the walk
 * allocates little per element: no string, PDFRef or map entry.
 */
export function writeStructure<Page>(doc: PDFDocument, tree: StructureTree<Page>, pages: TaggedPages): void {
  const context = doc.context;
  // Object `rootNumber` is the StructTreeRoot; the elements follow, numbered breadth first (element i is
  // `first + i`), so an element's kids get their numbers as the walk meets them: `first + queued.length`;
  // then the ParentTree's page arrays and the ParentTree. The root's text needs the ParentTree's number,
  // so it is written last, on its own: the rest is `out`, object `first + i` its i-th.
  // Iterative: a 64-deep HTML list nests about 200 elements deep, and a hostile document must not reach
  // the stack limit through this walk either.
  const rootNumber = context.largestObjectNumber + 1;
  const first = rootNumber + 1;
  const queued: StructureNode<Page>[] = [tree.root];
  const parents: number[] = [rootNumber];
  const out = new SyntaxBytes(scratch);
  /** Per page: the object number of the element owning each MCID (the page's ParentTree array). */
  const owners: number[][] = pages.pages.map(() => []);
  /** ParentTree entries after the pages': one per link annotation. */
  const annotationOwners: number[] = [];
  // Content kids name their page; consecutive kids mostly share one, so the last lookup is kept.
  let lastPage: Page | undefined;
  let lastIndex = -1;

  for (let index = 0; index < queued.length; index++) {
    const node = queued[index] as StructureNode<Page>;
    const self = first + index;
    // No /Type: it is optional (ISO 32000-1 Table 323), and a sixth of what a data table's cells write.
    out.ascii('<</S/').ascii(node.role).ascii('/P ').ref(parents[index] as number);
    const firstPage = node.page === undefined ? -1 : pageOf(node.page);
    if (firstPage >= 0) out.ascii('/Pg ').ref((pages.pages[firstPage] as PDFRef).objectNumber);
    let kidCount = 0;
    for (const kid of node.kids) if (typeof kid === 'number' || !isNode(kid) || written(kid)) kidCount++;
    if (kidCount > 0) {
      // A single kid stands alone (ISO 32000-1 Table 323 allows either): most cells of a data table have one MCID.
      out.ascii(kidCount === 1 ? '/K ' : '/K[');
      let separator = false;
      for (const kid of node.kids) {
        if (typeof kid === 'number') {
          if (separator) out.ascii(' ');
          separator = true;
          (owners[firstPage] as number[])[kid] = self;
          out.int(kid);
          continue;
        }
        if (isNode(kid)) {
          if (!written(kid)) continue;
          if (separator) out.ascii(' ');
          out.ref(first + queued.length);
          queued.push(kid);
          parents.push(self);
          separator = true;
          continue;
        }
        if (separator) out.ascii(' ');
        separator = true;
        const page = pageOf(kid.page);
        const pageRef = pages.pages[page] as PDFRef;
        if ('mcid' in kid) {
          // An MCID on another page than the element's /Pg (a paragraph split over a page break): an MCR names its page.
          (owners[page] as number[])[kid.mcid] = self;
          out.ascii('<</Type/MCR/Pg ').ref(pageRef.objectNumber).ascii('/MCID ').int(kid.mcid).ascii('>>');
          continue;
        }
        const annotation = pages.annotations[page]?.[kid.link] as PDFRef;
        const annotationDict = context.lookup(annotation, PDFDict);
        annotationDict.set(PDFName.of('StructParent'), PDFNumber.of(pages.pages.length + annotationOwners.length));
        if (node.alt !== undefined) annotationDict.set(PDFName.of('Contents'), PDFHexString.fromText(node.alt));
        annotationOwners.push(self);
        out.ascii('<</Type/OBJR/Obj ').ref(annotation.objectNumber).ascii('/Pg ').ref(pageRef.objectNumber).ascii('>>');
      }
      if (kidCount > 1) out.ascii(']');
    }
    if (node.alt !== undefined && node.role !== 'Link') out.ascii('/Alt').ascii(PDFHexString.fromText(node.alt).toString());
    if (node.scope !== undefined || node.colSpan !== undefined) {
      out.ascii('/A<</O/Table');
      if (node.scope !== undefined) out.ascii('/Scope/').ascii(node.scope);
      if (node.colSpan !== undefined) out.ascii('/ColSpan ').int(node.colSpan);
      out.ascii('>>');
    } else if (node.bbox !== undefined) {
      // PDF/UA checkers (veraPDF, PAC) and readers that show a figure's place look for a BBox on Figures.
      out.ascii(`/A<</O/Layout/BBox[${node.bbox.map((value) => String(Math.round(value * 100) / 100)).join(' ')}]>>`);
    }
    out.ascii('>>\n').end();
  }

  function pageOf(page: Page): number {
    if (page !== lastPage) {
      lastPage = page;
      lastIndex = tree.pageIndex(page);
    }
    return lastIndex;
  }

  const nums = new SyntaxBytes();
  pages.pages.forEach((pageRef, index) => {
    const page = context.lookup(pageRef, PDFDict);
    page.set(PDFName.of('StructParents'), PDFNumber.of(index));
    // PDF/UA-1 7.18.3: tab order follows the structure on every page with annotations.
    if ((pages.annotations[index]?.length ?? 0) > 0) page.set(PDFName.of('Tabs'), PDFName.of('S'));
    // Every MCID of a page is owned (the canvas numbers them 0.. as it opens them), so the array has no holes.
    nums.int(index).ascii(' ').ref(first + out.ends.length).ascii(' ');
    out.ascii('[');
    (owners[index] as number[]).forEach((owner, mcid) => (mcid === 0 ? out : out.ascii(' ')).ref(owner));
    out.ascii(']\n').end();
  });
  annotationOwners.forEach((owner, index) => {
    nums.int(pages.pages.length + index).ascii(' ').ref(owner).ascii(' ');
  });
  const parentTree = first + out.ends.length;
  const numsText = Buffer.from(nums.bytes.subarray(0, Math.max(0, nums.length - 1))).toString('latin1');
  out.ascii(`<</Nums[${numsText}]>>\n`).end();
  const nextKey = pages.pages.length + annotationOwners.length;
  context.assign(PDFRef.of(rootNumber), new SerializedObject(`<</Type/StructTreeRoot/K ${first} 0 R/ParentTree ${parentTree} 0 R/ParentTreeNextKey ${nextKey}>>`));
  if (pages.objectStreams && out.ends.length >= PACK_FROM) packObjects(context, first, out);
  else {
    const bytes = Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.length);
    // Without the newline that ends each object: pdf-lib's writer separates the objects it writes.
    out.ends.forEach((end, index) => context.assign(PDFRef.of(first + index), new SerializedObject(bytes.toString('latin1', index === 0 ? 0 : out.ends[index - 1], end - 1))));
  }
  doc.catalog.set(PDFName.of('StructTreeRoot'), PDFRef.of(rootNumber));
  doc.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
  // What was written has been copied out (deflated, or into strings), so the buffer can serve the next render.
  if (out.buffer.length <= MAX_SCRATCH) scratch = out.buffer;
}

/**
 * The fewest objects packed in streams of their own: a stream of our own is
 * one more deflate a save, whose set-up alone is ~25-65 µs (a deflateSync of
 * 220 bytes, 1,000 runs), 3-5% of a tagged letter's ~1.2 ms, while pdf-lib
 * packs a letter's dozen objects into its own stream for a few µs. At 1.2
 * µs an object through pdf-lib's writer (the 10-page invoice's 1,250 cost
 * ~1.5 ms), a stream of our own pays from about 50.
 */
const PACK_FROM = 50;

/**
 * The structure writer's buffer, kept between the renders of a worker
 * thread (writeStructure runs synchronously, so one at a time): the 10-page
 * invoice's structure is ~70 KB; a structure of more than a megabyte gets
 * a buffer of its own, not kept.
 */
const MAX_SCRATCH = 1024 * 1024;
let scratch: Uint8Array = new Uint8Array(64 * 1024);

/** The PDF/UA identification (ISO 14289-1 §5) as an XMP description. */
export const PDFUA_IDENTIFICATION = '<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"><pdfuaid:part>1</pdfuaid:part></rdf:Description>';

/**
 * PDF/A-2 (ISO 19005-2 §6.6.2.3) accepts only the XMP schemas it predefines
 * unless the file describes the others: this is the PDF/UA schema's
 * description, as ISO 14289-1 gives it, for a file that is both.
 */
export const PDFUA_EXTENSION_SCHEMA =
  '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
  '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">' +
  '<pdfaSchema:schema>PDF/UA Universal Accessibility Schema</pdfaSchema:schema>' +
  '<pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI>' +
  '<pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>' +
  '<pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource">' +
  '<pdfaProperty:name>part</pdfaProperty:name><pdfaProperty:valueType>Integer</pdfaProperty:valueType>' +
  '<pdfaProperty:category>internal</pdfaProperty:category>' +
  '<pdfaProperty:description>Indicates, which part of ISO 14289 standard is followed</pdfaProperty:description>' +
  '</rdf:li></rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>';

/** A catalog metadata stream for a tagged file that is not PDF/A (pdf-lib writes PDF/A's own): the title and the PDF/UA identification. */
export function writeTaggedMetadata(doc: PDFDocument, title: string, language: string): void {
  const xml =
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format>' +
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(title)}</rdf:li><rdf:li xml:lang="${escapeXml(language)}">${escapeXml(title)}</rdf:li></rdf:Alt></dc:title></rdf:Description>\n` +
    `${PDFUA_IDENTIFICATION}\n</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>`;
  const context = doc.context;
  // Unfiltered, as XMP is meant to be found by tools that do not parse PDF (ISO 32000-1 §14.3.2).
  const stream = context.stream(Buffer.from(xml, 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), context.register(stream));
}

/**
 * Claims PDF/A level A in the packet pdf-lib's converter wrote at the level
 * below (`from`: B for part 1, whose levels are A and B; U for parts 2 and
 * 3): its converter writes levels B and U only, and level A is that level
 * plus the logical structure (ISO 19005-1 6.8, 19005-2 6.7) a tagged render
 * writes. pdf-lib rebuilds its packet on save only when it reads a B or U
 * claim back, so the packet is saved as rewritten here
 * (test/render-pdfa.test.ts reads the claim back from the file).
 */
export function claimPdfALevelA(doc: PDFDocument, from: 'B' | 'U'): void {
  const stream = doc.context.lookup(doc.catalog.get(PDFName.of('Metadata')));
  const claimed = `<pdfaid:conformance>${from}</pdfaid:conformance>`;
  const xml = stream instanceof PDFRawStream ? Buffer.from(stream.getContents()).toString('utf8') : '';
  // A bug, not a client's error: the converter's packet changed shape.
  if (!(stream instanceof PDFRawStream) || !xml.includes(claimed)) throw new Error(`pdf-lib wrote no PDF/A level ${from} packet to claim level A in`);
  stream.updateContents(Buffer.from(xml.replace(claimed, '<pdfaid:conformance>A</pdfaid:conformance>'), 'utf8'));
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
