// Documents built for the forensic and ai-certify tests, each with one
// thing to find: an incremental update appended after a signature, text
// hidden in the ways hidden text is hidden, an OpenAction running
// JavaScript, an embedded file.
import { PDFDocument, PDFName, PDFRef, PDFString, StandardFonts, rgb } from '@cantoo/pdf-lib';

/**
 * Appends an incremental update (ISO 32000-1 7.5.6) that draws `text` on
 * page 1: the original bytes stay as they are, so a signature over them
 * still verifies, and only what the update shows has changed.
 */
export async function appendTextUpdate(pdf: Uint8Array, text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  const page = doc.getPage(0);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText(text, { x: 72, y: 400, size: 18, font });
  doc.context.snapshot?.markRefForSave(page.ref);
  return doc.commit({ useObjectStreams: false });
}

/** One page with visible text and, beside it, text hidden in the way `hide` draws it (raw content operators). */
export async function pageWithHiddenText(visible: string, hiddenContent: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText(visible, { x: 72, y: 700, size: 14, font, color: rgb(0, 0, 0) });
  const fontName = page.node.normalizedEntries().Font.keys()[0]?.asString() ?? '/F1';
  const stream = doc.context.stream(hiddenContent.replaceAll('/F1 ', `${fontName} `));
  page.node.addContentStream(doc.context.register(stream));
  return doc.save({ useObjectStreams: false });
}

/** A document whose OpenAction runs `script` (an indirect action dictionary, so qpdf can move it into an object stream). */
export async function openActionScript(script: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Invoice 2026-11', { x: 72, y: 700, size: 14, font });
  const action: PDFRef = doc.context.register(doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of(script) }));
  doc.catalog.set(PDFName.of('OpenAction'), action);
  return doc.save({ useObjectStreams: false });
}

export async function withAttachment(name: string, content: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('See the attached file.', { x: 72, y: 700, size: 14, font });
  await doc.attach(content, name, { mimeType: 'application/octet-stream', description: 'attachment' });
  return doc.save({ useObjectStreams: false });
}
