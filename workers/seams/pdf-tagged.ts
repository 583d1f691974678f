// Writes a tagged PDF's logical structure (ISO 32000-1 §14.7-14.8, as PDF/UA-1
// asks of it) into a pdf-lib document: the StructTreeRoot and its elements,
// the ParentTree that maps each page's MCIDs and each link annotation back to
// its element, /StructParents and /Tabs /S on the pages, /StructParent and
// /Contents on link annotations, /MarkInfo, and the XMP packet with dc:title
// and pdfuaid:part 1. The render engine hands a neutral tree (no pdf-lib type
// crosses this seam); pdf.ts calls this from save().
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';

/** A marked-content sequence on a page: `mcid` in the page's content stream. */
export interface ContentKid {
  readonly page: number;
  readonly mcid: number;
}

/** A link annotation of a page, by its index among the page's links (PageContent.links). */
export interface AnnotationKid {
  readonly page: number;
  readonly link: number;
}

/** A structure element. `role` is a standard structure type (no RoleMap is written). */
export interface StructureNode {
  readonly role: string;
  readonly kids: readonly (StructureNode | ContentKid | AnnotationKid)[];
  /** Alternate text (Figure); also the /Contents of the link annotations a Link owns. */
  readonly alt?: string;
  /** Table attributes (§14.8.5.7): a header cell's scope, a cell's column span. */
  readonly scope?: 'Column' | 'Row';
  readonly colSpan?: number;
  /** Layout attribute (§14.8.5.4.3) of a Figure: its box on its page (x1 y1 x2 y2, default user space). */
  readonly bbox?: readonly [number, number, number, number];
}

export interface StructureTree {
  /** The Document element. */
  readonly root: StructureNode;
}

/** Pages and their link annotations as the document wrote them, in page order. */
export interface TaggedPages {
  readonly pages: readonly PDFRef[];
  readonly annotations: readonly (readonly PDFRef[])[];
}

const isNode = (kid: StructureNode | ContentKid | AnnotationKid): kid is StructureNode => 'role' in kid;

/** Writes the structure into `doc`. Call once, after every page is added. */
export function writeStructure(doc: PDFDocument, tree: StructureTree, pages: TaggedPages): void {
  const context = doc.context;
  const rootRef = context.nextRef();
  /** Per page: the element owning each MCID (the page's ParentTree array). */
  const owners: PDFRef[][] = pages.pages.map(() => []);
  /** ParentTree entries after the pages': one per link annotation. */
  const annotationOwners: PDFRef[] = [];

  // Depth-first, iterative: a 64-deep HTML list nests about 200 elements deep, and a
  // hostile document must not reach the stack limit through this walk either.
  const elementRefs = new Map<StructureNode, PDFRef>();
  const stack: Array<{ node: StructureNode; parent: PDFRef }> = [{ node: tree.root, parent: rootRef }];
  while (stack.length > 0) {
    const { node, parent } = stack.pop() as { node: StructureNode; parent: PDFRef };
    const ref = elementRefs.get(node) ?? context.nextRef();
    elementRefs.set(node, ref);
    const dict = PDFDict.withContext(context);
    dict.set(PDFName.of('Type'), PDFName.of('StructElem'));
    dict.set(PDFName.of('S'), PDFName.of(node.role));
    dict.set(PDFName.of('P'), parent);
    const firstPage = node.kids.find((kid): kid is ContentKid => !isNode(kid) && 'mcid' in kid)?.page;
    if (firstPage !== undefined) dict.set(PDFName.of('Pg'), pages.pages[firstPage] as PDFRef);
    const kids = PDFArray.withContext(context);
    for (const kid of node.kids) {
      if (isNode(kid)) {
        const kidRef = context.nextRef();
        elementRefs.set(kid, kidRef);
        kids.push(kidRef);
        continue;
      }
      const pageRef = pages.pages[kid.page] as PDFRef;
      if ('mcid' in kid) {
        (owners[kid.page] as PDFRef[])[kid.mcid] = ref;
        // An MCID on the element's own /Pg is a bare integer; on another page (a paragraph split over a page break) an MCR names its page.
        kids.push(kid.page === firstPage ? PDFNumber.of(kid.mcid) : context.obj({ Type: 'MCR', Pg: pageRef, MCID: kid.mcid }));
        continue;
      }
      const annotation = pages.annotations[kid.page]?.[kid.link] as PDFRef;
      const annotationDict = context.lookup(annotation, PDFDict);
      annotationDict.set(PDFName.of('StructParent'), PDFNumber.of(pages.pages.length + annotationOwners.length));
      if (node.alt !== undefined) annotationDict.set(PDFName.of('Contents'), PDFHexString.fromText(node.alt));
      annotationOwners.push(ref);
      kids.push(context.obj({ Type: 'OBJR', Obj: annotation, Pg: pageRef }));
    }
    if (kids.size() > 0) dict.set(PDFName.of('K'), kids);
    if (node.alt !== undefined && node.role !== 'Link') dict.set(PDFName.of('Alt'), PDFHexString.fromText(node.alt));
    if (node.scope !== undefined || node.colSpan !== undefined) {
      const attributes = PDFDict.withContext(context);
      attributes.set(PDFName.of('O'), PDFName.of('Table'));
      if (node.scope !== undefined) attributes.set(PDFName.of('Scope'), PDFName.of(node.scope));
      if (node.colSpan !== undefined) attributes.set(PDFName.of('ColSpan'), PDFNumber.of(node.colSpan));
      dict.set(PDFName.of('A'), attributes);
    } else if (node.bbox !== undefined) {
      // PDF/UA checkers (veraPDF, PAC) and readers that show a figure's place look for a BBox on Figures.
      dict.set(PDFName.of('A'), context.obj({ O: 'Layout', BBox: node.bbox.map((value) => PDFNumber.of(Math.round(value * 100) / 100)) }));
    }
    context.assign(ref, dict);
    // Pushed in reverse so the kids are written in reading order (only object numbers depend on it).
    for (let i = node.kids.length - 1; i >= 0; i--) {
      const kid = node.kids[i] as StructureNode | ContentKid | AnnotationKid;
      if (isNode(kid)) stack.push({ node: kid, parent: ref });
    }
  }

  const nums = PDFArray.withContext(context);
  pages.pages.forEach((pageRef, index) => {
    const page = context.lookup(pageRef, PDFDict);
    page.set(PDFName.of('StructParents'), PDFNumber.of(index));
    // PDF/UA-1 7.18.3: tab order follows the structure on every page with annotations.
    if ((pages.annotations[index]?.length ?? 0) > 0) page.set(PDFName.of('Tabs'), PDFName.of('S'));
    nums.push(PDFNumber.of(index));
    // Every MCID of a page is owned (the canvas numbers them 0.. as it opens them), so the array has no holes.
    nums.push(context.register(context.obj(owners[index] as PDFRef[])));
  });
  annotationOwners.forEach((owner, index) => {
    nums.push(PDFNumber.of(pages.pages.length + index));
    nums.push(owner);
  });
  const parentTree = context.obj({});
  parentTree.set(PDFName.of('Nums'), nums);
  context.assign(
    rootRef,
    context.obj({
      Type: 'StructTreeRoot',
      K: elementRefs.get(tree.root) as PDFRef,
      ParentTree: context.register(parentTree),
      ParentTreeNextKey: pages.pages.length + annotationOwners.length,
    }),
  );
  doc.catalog.set(PDFName.of('StructTreeRoot'), rootRef);
  doc.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
}

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
