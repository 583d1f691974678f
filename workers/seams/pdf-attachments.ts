// Embedded files (output.attachments) as associated files: each an
// EmbeddedFile stream with its MIME type as /Subtype and /Params (Size,
// CreationDate, ModDate), a file specification with /F, /UF, /EF,
// /AFRelationship and /Desc, listed in the catalog's /AF array and in the
// EmbeddedFiles name tree. That is what ISO 19005-3 6.8 asks of every
// embedded file of a PDF/A-3 document (veraPDF's 6.8-1 to -4: a MIME
// Subtype, F and UF, AFRelationship, associated from an AF array), and a
// plain PDF reads the same way (poppler's pdfdetach, a viewer's attachment
// panel). Written here rather than with pdf-lib's attach(): its /F is the
// name's UTF-16 code units cut to bytes (a non-ASCII name is garbled), and
// its name tree entries stay in call order where ISO 32000-1 7.9.6 asks for
// sorted keys. Part of the PDF seam (pdf.ts calls it from save()).
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';

export type AttachmentRelationship = 'Source' | 'Data' | 'Alternative' | 'Supplement' | 'Unspecified';

export interface Attachment {
  /** The file name a reader shows and extracts to; unique in the document. */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** A MIME type, type/subtype (the render schema checks its shape). */
  readonly mimeType: string;
  readonly relationship: AttachmentRelationship;
  readonly description?: string;
}

/** Embeds `files` into `doc`, dated `date` (created and modified). Call once, from save(). */
export function writeAttachments(doc: PDFDocument, files: readonly Attachment[], date: Date): void {
  if (files.length === 0) return;
  const context = doc.context;
  const when = PDFString.fromDate(date);
  const specs: Array<{ key: PDFHexString; name: string; ref: PDFRef }> = [];
  for (const file of files) {
    const stream = context.flateStream(file.bytes, {
      Type: 'EmbeddedFile',
      Subtype: file.mimeType,
      Params: { Size: file.bytes.length, CreationDate: when, ModDate: when },
    });
    const streamRef = context.register(stream);
    const spec = context.obj({
      Type: 'Filespec',
      // F is a byte string (PDFDocEncoding); UF the name in Unicode, which readers prefer (ISO 32000-1 7.11.3).
      F: PDFString.of(asciiName(file.name)),
      UF: PDFHexString.fromText(file.name),
      EF: { F: streamRef, UF: streamRef },
      AFRelationship: file.relationship,
    });
    if (file.description !== undefined) spec.set(PDFName.of('Desc'), PDFHexString.fromText(file.description));
    specs.push({ key: PDFHexString.fromText(file.name), name: file.name, ref: context.register(spec) });
  }
  // Name tree keys in lexical order of their bytes: UTF-16BE after the same BOM, which JavaScript's code-unit order is.
  const sorted = [...specs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = PDFArray.withContext(context);
  for (const spec of sorted) {
    names.push(spec.key);
    names.push(spec.ref);
  }
  const catalog = doc.catalog;
  let nameDictionary = catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  if (nameDictionary === undefined) {
    nameDictionary = context.obj({});
    catalog.set(PDFName.of('Names'), nameDictionary);
  }
  nameDictionary.set(PDFName.of('EmbeddedFiles'), context.obj({ Names: names }));
  catalog.set(PDFName.of('AF'), context.obj(specs.map((spec) => spec.ref)));
}

/** The name in printable ASCII for /F: other characters become '_' (UF keeps the name as given). */
function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, '_').replace(/[()\\]/g, '_');
}
