// Embedded files (ISO 19005-1 6.1.11, 19005-2 6.8, 19005-3 6.8): none in
// part 1; in part 2 each file specification with F and UF; in part 3, where
// files of any kind may be embedded, also a MIME type as the stream's
// Subtype, an AFRelationship, and the file specification listed in an AF
// array (the document's or a part's), as veraPDF's PDF/A-3 profiles test
// them (6.8-1 to -4).
import { PdfDict, PdfStream } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

/** veraPDF's test of an embedded file's Subtype (PDF/A-3 6.8-1): a MIME type, type/subtype. */
const MIME_TYPE = /^[-\w+.]+\/[-\w+.]+$/;

export const EMBEDDED_FILE_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.1.11-2' },
    description: 'The name dictionary shall not contain EmbeddedFiles',
    *check(d) {
      const names = d.pdf.dict(d.pdf.catalog?.get('Names'));
      if (names?.has('EmbeddedFiles') === true) yield at('EmbeddedFiles in the name dictionary');
    },
  },
  {
    ids: { 1: '6.1.11-1' },
    description: 'A file specification shall not contain EF',
    check: (d) => fileSpecs(d, (spec) => spec.has('EF')),
  },
  {
    ids: { 2: '6.8-2', 3: '6.8-2' },
    description: 'A file specification with an embedded file shall have F and UF',
    check: (d) => fileSpecs(d, (spec) => spec.has('EF') && !(spec.has('F') && spec.has('UF'))),
  },
  {
    ids: { 3: '6.8-1' },
    description: 'The MIME type of an embedded file shall be given by the Subtype key of its stream (application/octet-stream when not known)',
    *check(d) {
      for (const ref of d.pdf.refs()) {
        const value = d.pdf.resolve(ref);
        if (!(value instanceof PdfStream) || value.dict.name('Type') !== 'EmbeddedFile') continue;
        const subtype = value.dict.name('Subtype');
        if (subtype === undefined || !MIME_TYPE.test(subtype)) yield at(`embedded file ${ref.toString()}: ${subtype === undefined ? 'no /Subtype' : `/Subtype /${subtype}`}`);
      }
    },
  },
  {
    ids: { 3: '6.8-4' },
    description: 'An embedded file shall be associated with the document or a part of it: its file specification listed in an AF array',
    *check(d) {
      const associated = new Set<string>();
      for (const ref of d.pdf.refs()) {
        const value = d.pdf.resolve(ref);
        const dict = value instanceof PdfStream ? value.dict : value instanceof PdfDict ? value : undefined;
        for (const item of d.pdf.array(dict?.get('AF')) ?? []) associated.add(String(item));
      }
      for (const ref of d.pdf.refs()) {
        const value = d.pdf.resolve(ref);
        if (!(value instanceof PdfDict) || !value.has('EF')) continue;
        if (!associated.has(ref.toString())) yield at(`file specification ${ref.toString()} is in no AF array`);
      }
    },
  },
  {
    ids: { 3: '6.8-3' },
    description: 'A file specification shall have AFRelationship (PDF/A-3)',
    check: (d) => fileSpecs(d, (spec) => spec.has('EF') && !spec.has('AFRelationship')),
  },
];

function* fileSpecs(d: PdfaDocument, broken: (spec: PdfDict) => boolean): Generator<ReturnType<typeof at>> {
  for (const ref of d.pdf.refs()) {
    const value = d.pdf.resolve(ref);
    const dict = value instanceof PdfStream ? undefined : value instanceof PdfDict ? value : undefined;
    if (dict === undefined) continue;
    if ((dict.name('Type') === 'Filespec' || dict.has('EF')) && broken(dict)) yield at(`file specification ${ref.toString()}`);
  }
}
