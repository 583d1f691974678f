// PDF/UA-1 rules about the document as a whole: identification and metadata
// (clause 5, 7.1), the catalog's flags, optional content configurations
// (7.10), embedded files (7.11), XFA (7.15), encryption (7.16) and
// reference XObjects (7.20-1). Descriptions are veraPDF's (PDFUA-1.xml).
import type { PdfDict } from '../../untrusted/pdf-values.js';
import { XMP_NAMESPACES } from '../xmp.js';
import type { UaDocument } from './document.js';
import { uaRule, type UaRule } from './rule.js';

const ua = XMP_NAMESPACES.pdfuaid;

export const DOCUMENT_RULES: readonly UaRule[] = [
  uaRule('5-1', 'The PDF/UA version and conformance level of a file shall be specified using the PDF/UA Identification extension schema', function* (doc) {
    const xmp = doc.xmp;
    if (xmp === undefined || !xmp.wellFormed || xmp.get(ua, 'part') === undefined) yield { sample: 'no pdfuaid:part in the catalog metadata' };
  }),
  uaRule('5-2', 'The value of "pdfuaid:part" shall be the part number of the International Standard to which the file conforms', function* (doc) {
    const part = doc.xmp?.wellFormed === true ? doc.xmp.get(ua, 'part') : undefined;
    if (part !== undefined && part.text.trim() !== '1') yield { sample: `pdfuaid:part is ${part.text}` };
  }),
  ...(['part', 'amd', 'corr'] as const).map((name, i) =>
    uaRule(`5-${3 + i}`, `Property "${name}" of the PDF/UA Identification Schema shall have namespace prefix "pdfuaid"`, function* (doc) {
      const property = doc.xmp?.wellFormed === true ? doc.xmp.get(ua, name) : undefined;
      if (property !== undefined && property.prefix !== 'pdfuaid') yield { sample: `${property.prefix}:${name}` };
    }),
  ),
  uaRule('6.1-1', 'The file header shall consist of "%PDF-1.n" followed by a single EOL marker, where \'n\' is a single digit number between 0 (30h) and 7 (37h)', function* (doc) {
    if (!/^1\.[0-7]$/.test(doc.pdf.version)) yield { sample: `%PDF-${doc.pdf.version}` };
  }),
  uaRule('6.2-1', 'The document catalog dictionary shall include a MarkInfo dictionary containing an entry, Marked, whose value shall be true', function* (doc) {
    if (doc.pdf.resolve(doc.pdf.dict(doc.catalog.get('MarkInfo'))?.get('Marked')) !== true) yield { sample: 'MarkInfo /Marked is not true' };
  }),
  uaRule('7.1-4', 'Files shall have a Suspects value of false (ISO 32000-1:2008, Table 321)', function* (doc) {
    if (doc.pdf.resolve(doc.pdf.dict(doc.catalog.get('MarkInfo'))?.get('Suspects')) === true) yield { sample: 'MarkInfo /Suspects true' };
  }),
  uaRule('7.1-8', 'The Catalog dictionary of a conforming file shall contain the Metadata key whose value is a metadata stream', function* (doc) {
    if (doc.metadataStream === undefined) yield { sample: 'no /Metadata stream in the catalog' };
  }),
  uaRule('7.1-9', 'The Metadata stream in the document\'s catalog dictionary shall contain a dc:title entry', function* (doc) {
    const xmp = doc.xmp;
    if (xmp !== undefined && (!xmp.wellFormed || xmp.get(XMP_NAMESPACES.dc, 'title') === undefined)) yield { sample: 'no dc:title in the catalog metadata' };
  }),
  uaRule('7.1-10', 'The document catalog dictionary shall include a ViewerPreferences dictionary containing a DisplayDocTitle key, whose value shall be true', function* (doc) {
    if (doc.pdf.resolve(doc.pdf.dict(doc.catalog.get('ViewerPreferences'))?.get('DisplayDocTitle')) !== true) yield { sample: 'ViewerPreferences /DisplayDocTitle is not true' };
  }),
  uaRule('7.1-11', 'The logical structure of the conforming file shall be described by a structure hierarchy rooted in the StructTreeRoot entry of the document catalog dictionary', function* (doc) {
    if (doc.structure.root === undefined) yield { sample: 'no /StructTreeRoot in the catalog' };
  }),
  uaRule('7.2-33', 'Natural language for document metadata shall be determined', function* (doc) {
    const bytes = doc.metadataStream?.decoded();
    if (bytes === undefined || doc.hasCatalogLang) return;
    // veraPDF's XMPLangAlt.xDefault: a language alternative whose only language is x-default (one with a real language beside it says what it is).
    const text = Buffer.from(bytes).toString('utf8');
    for (const alt of text.matchAll(/<rdf:Alt\b[^>]*>([\s\S]*?)<\/rdf:Alt>/g)) {
      const langs = [...alt[1]!.matchAll(/xml:lang\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]);
      if (langs.length > 0 && langs.every((lang) => lang === 'x-default')) yield { sample: 'an x-default-only language alternative without a catalog /Lang' };
    }
  }),
  uaRule('7.10-1', 'Each optional content configuration dictionary that forms the value of the D key, or that is an element in the array that forms the value of the Configs key in the OCProperties dictionary, shall contain the Name key', function* (doc) {
    for (const config of ocConfigs(doc)) {
      const name = doc.pdf.text(config.get('Name'));
      if (name === undefined || name === '') yield { sample: 'an optional content configuration without a /Name' };
    }
  }),
  uaRule('7.10-2', 'The AS key shall not appear in any optional content configuration dictionary', function* (doc) {
    for (const config of ocConfigs(doc)) if (config.has('AS')) yield { sample: 'an optional content configuration with /AS' };
  }),
  uaRule('7.11-1', 'The file specification dictionary for an embedded file shall contain the non-empty F and UF keys', function* (doc) {
    for (const dict of doc.allDicts()) {
      if (!dict.has('EF')) continue;
      const f = doc.pdf.text(dict.get('F'));
      const uf = doc.pdf.text(dict.get('UF'));
      if (f === undefined || f === '' || uf === undefined || uf === '') yield { sample: `file specification ${f ?? uf ?? ''} lacks /F or /UF` };
    }
  }),
  uaRule('7.15-1', 'Dynamic XFA forms shall not be used', function* (doc) {
    const xfa = doc.pdf.resolve(doc.pdf.dict(doc.catalog.get('AcroForm'))?.get('XFA'));
    // The XFA packets may be one stream or an array of name, stream pairs; an element may be split across two.
    const streams = Array.isArray(xfa) ? xfa.map((item) => doc.pdf.stream(item)) : [doc.pdf.stream(xfa ?? undefined)];
    const text = streams.map((stream) => Buffer.from(stream?.decoded() ?? new Uint8Array()).toString('utf8')).join('');
    if (/<dynamicRender[^>]*>\s*required\s*<\/dynamicRender\s*>/.test(text)) yield { sample: 'XFA config dynamicRender required' };
  }),
  uaRule('7.16-1', 'An encrypted conforming file shall contain a P key in its encryption dictionary. The 10th bit position of the P key shall be true', function* (doc) {
    const encrypt = doc.pdf.dict(doc.pdf.trailer.get('Encrypt'));
    if (encrypt === undefined) return;
    const p = doc.pdf.number(encrypt.get('P'));
    if (p === undefined || (p & 512) !== 512) yield { sample: p === undefined ? 'no /P in the encryption dictionary' : `/P ${p} lacks bit 10 (content extraction for accessibility)` };
  }),
  uaRule('7.20-1', 'A conforming file shall not contain any reference XObjects', function* (doc) {
    for (const dict of doc.allDicts()) if (dict.name('Subtype') === 'Form' && dict.has('Ref')) yield { sample: 'a Form XObject with /Ref' };
  }),
];

function* ocConfigs(doc: UaDocument): Generator<PdfDict> {
  const properties = doc.pdf.dict(doc.catalog.get('OCProperties'));
  if (properties === undefined) return;
  const d = doc.pdf.dict(properties.get('D'));
  if (d !== undefined) yield d;
  for (const config of doc.pdf.array(properties.get('Configs')) ?? []) {
    const dict = doc.pdf.dict(config);
    if (dict !== undefined) yield dict;
  }
}
