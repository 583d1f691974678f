// Small tagged PDFs written byte by byte for the accessibility check: a
// document that meets PDF/UA-1 (MarkInfo, a structure tree whose elements
// own every MCID on the page, the PDF/UA identifier and dc:title in XMP,
// DisplayDocTitle, /Lang), and the same document with one thing broken, so
// a test can name the exact rule that must fail. Content is drawn with
// paths only, so the font rules (7.21) have nothing to say about it unless
// `helveticaText` adds a line of text.
export interface TaggedOptions {
  /** Structure types of the headings, in order (each owns one rectangle). Default H1, H2. */
  readonly headings?: readonly string[];
  /** The figure's /Alt; null leaves it out. Default "A blue square". */
  readonly figureAlt?: string | null;
  /** Draw one rectangle outside any marked content. */
  readonly untaggedContent?: boolean;
  /** Leave the PDF/UA identifier out of the XMP. */
  readonly withoutIdentifier?: boolean;
  /** RoleMap entries, e.g. { Heading: "H1" } (use a mapped name in `headings`). */
  readonly roleMap?: Readonly<Record<string, string>>;
  /** Add one tagged line of text in Helvetica, not embedded, with this /Encoding (a name, or a raw dictionary). */
  readonly helveticaText?: string;
}

function xmp(identifier: boolean): string {
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    (identifier ? '<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" pdfuaid:part="1"/>\n' : '') +
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Squares</rdf:li><rdf:li xml:lang="en">Squares</rdf:li></rdf:Alt></dc:title></rdf:Description>\n' +
    '</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>'
  );
}

export function taggedPdf(options: TaggedOptions = {}): Uint8Array {
  const headings = options.headings ?? ['H1', 'H2'];
  const alt = options.figureAlt === undefined ? 'A blue square' : options.figureAlt;
  // Objects: 1 catalog, 2 pages, 3 page, 4 content, 5 metadata, 6 StructTreeRoot, 7 Document, 8 ParentTree array, 9 figure, 10.. headings.
  const headingIds = headings.map((_, i) => 10 + i);
  let content = '/Artifact BMC 0 0 0 RG 20 20 m 572 20 l S EMC\n';
  headings.forEach((_, i) => (content += `/${headings[i]} <</MCID ${i}>> BDC 0 0 0 rg 72 ${700 - i * 40} 200 20 re f EMC\n`));
  const figureMcid = headings.length;
  content += `/Figure <</MCID ${figureMcid}>> BDC 0 0 1 rg 72 300 100 100 re f EMC\n`;
  if (options.untaggedContent === true) content += '1 0 0 rg 300 300 50 50 re f\n';
  // The text is owned by the figure's element (its MCID), so the structure stays as it is.
  if (options.helveticaText !== undefined) content += `/Span <</MCID ${figureMcid}>> BDC BT /F1 12 Tf 72 250 Td (Hello) Tj ET EMC\n`;
  const resources = options.helveticaText === undefined ? '<< >>' : `<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding ${options.helveticaText} >> >> >>`;
  const roleMap = options.roleMap === undefined ? '' : ` /RoleMap << ${Object.entries(options.roleMap).map(([k, v]) => `/${k} /${v}`).join(' ')} >>`;
  const metadata = xmp(options.withoutIdentifier !== true);
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R /StructTreeRoot 6 0 R /MarkInfo << /Marked true >> /Lang (en-GB) /ViewerPreferences << /DisplayDocTitle true >> >>';
  objects[2] = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
  objects[3] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents 4 0 R /StructParents 0 /Tabs /S >>`;
  objects[4] = `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;
  objects[5] = `<< /Type /Metadata /Subtype /XML /Length ${Buffer.byteLength(metadata, 'utf8')} >>\nstream\n${metadata}\nendstream`;
  objects[6] = `<< /Type /StructTreeRoot /K 7 0 R /ParentTree << /Nums [0 8 0 R] >>${roleMap} >>`;
  objects[7] = `<< /Type /StructElem /S /Document /P 6 0 R /K [${[...headingIds, 9].map((id) => `${id} 0 R`).join(' ')}] >>`;
  objects[8] = `[${[...headingIds, 9].map((id) => `${id} 0 R`).join(' ')}]`;
  objects[9] = `<< /Type /StructElem /S /Figure /P 7 0 R /Pg 3 0 R /K ${figureMcid}${alt === null ? '' : ` /Alt (${alt})`} >>`;
  headings.forEach((type, i) => (objects[10 + i] = `<< /Type /StructElem /S /${type} /P 7 0 R /Pg 3 0 R /K ${i} >>`));
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${id === 5 ? Buffer.from(objects[id]!, 'utf8').toString('latin1') : objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /ID [<0123456789abcdef> <0123456789abcdef>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
