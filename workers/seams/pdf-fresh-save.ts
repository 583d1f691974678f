// The redacted document written as a fresh file, never an incremental
// update: pdf-lib parses every object in the file, earlier revisions'
// objects included, so before saving, everything the new document does not
// reach from its catalog is deleted (an object only a superseded revision
// used would otherwise be written again, text and all). The document
// information dictionary, the catalog's XMP metadata and /PieceInfo
// (private application data) are dropped, form fields whose widgets the
// redaction removed leave the field tree, and the output is not encrypted.
// Part of the redaction's pdf-lib seam (pdf-redaction.ts).
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';

/** Saves `doc` without the unreachable objects, metadata and fields named above; `removedAnnotations` are the widgets taken out. */
export async function saveFresh(doc: PDFDocument, removedAnnotations: ReadonlySet<PDFObject>): Promise<Uint8Array> {
  removeFields(doc, removedAnnotations);
  doc.catalog.delete(PDFName.of('Metadata'));
  doc.catalog.delete(PDFName.of('PieceInfo'));
  doc.context.trailerInfo.Info = undefined;
  doc.context.trailerInfo.Encrypt = undefined;
  collectGarbage(doc);
  return doc.save({ useObjectStreams: true, updateFieldAppearances: false });
}

/** Form fields whose widgets were removed leave the AcroForm's field tree; a field left without widgets or kids goes too. */
function removeFields(doc: PDFDocument, removed: ReadonlySet<PDFObject>): void {
  const acroForm = doc.context.lookup(doc.catalog.get(PDFName.of('AcroForm')));
  if (!(acroForm instanceof PDFDict) || removed.size === 0) return;
  const prune = (list: PDFArray, depth: number): PDFObject[] =>
    list.asArray().filter((entry) => {
      if (removed.has(entry)) return false;
      const field = doc.context.lookup(entry);
      if (!(field instanceof PDFDict) || removed.has(field)) return !(field instanceof PDFDict);
      const kids = doc.context.lookup(field.get(PDFName.of('Kids')));
      if (!(kids instanceof PDFArray) || depth > 32) return true;
      const left = prune(kids, depth + 1);
      if (left.length === 0) return false;
      field.set(PDFName.of('Kids'), doc.context.obj(left));
      return true;
    });
  const fields = doc.context.lookup(acroForm.get(PDFName.of('Fields')));
  if (fields instanceof PDFArray) acroForm.set(PDFName.of('Fields'), doc.context.obj(prune(fields, 0)));
}

/** Deletes every indirect object the trailer's /Root does not reach (see the header). */
function collectGarbage(doc: PDFDocument): void {
  const reached = new Set<string>();
  const pending: (PDFObject | undefined)[] = [doc.context.trailerInfo.Root];
  while (pending.length > 0) {
    const object = pending.pop();
    if (object instanceof PDFRef) {
      if (reached.has(object.tag)) continue;
      reached.add(object.tag);
      const target = doc.context.lookup(object);
      if (target !== undefined) pending.push(target);
    } else if (object instanceof PDFDict) {
      for (const [, value] of object.entries()) pending.push(value);
    } else if (object instanceof PDFArray) {
      pending.push(...object.asArray());
    } else if (object instanceof PDFStream) {
      pending.push(object.dict);
    }
  }
  for (const [ref] of doc.context.enumerateIndirectObjects()) {
    if (!reached.has(ref.tag)) doc.context.delete(ref);
  }
}
