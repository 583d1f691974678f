// A signature field added to a PDF as an incremental update (ISO 32000-2
// section 7.5.6), behind this seam with pdf-lib: the original bytes stay
// as they are, so signatures already in the file still cover what they
// covered and a document signed twice has two valid signatures. The
// signature dictionary gets a /ByteRange and a zero-filled /Contents
// placeholder; workers/sign/ fills both in.
import { signatureAppearance } from './pdf-signature-appearance.js';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, ParseSpeeds } from '@cantoo/pdf-lib';

export interface SignatureField {
  readonly fieldName?: string;
  readonly reason?: string;
  readonly location?: string;
  readonly contactInfo?: string;
  /** Goes in /M: PAdES B-B has no signing-time attribute. */
  readonly signedAt: Date;
  /** Bytes reserved for the DER CMS in /Contents. */
  readonly contentsBytes: number;
  /** A visible box; without it the signature is invisible. */
  readonly appearance?: SignatureBox;
}

/** Where the visible signature goes and what it shows. */
export interface SignatureBox {
  /** 0-based page index. */
  readonly page: number;
  /** The box's top-left corner and size, in points from the page's top-left corner (its crop box), y down. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly lines: readonly string[];
  /** The font for text Helvetica cannot draw (DejaVu Sans). */
  readonly fallbackFont: Uint8Array;
}

export interface PlacedSignature {
  /** The whole file: the original bytes, then the update holding the placeholder. */
  readonly bytes: Uint8Array;
  /** Offsets of /Contents' hex string, '<' included, and just past its '>'. */
  readonly contentsStart: number;
  readonly contentsEnd: number;
  /** Offset and length of the /ByteRange array's placeholder, to overwrite in place. */
  readonly byteRangeAt: number;
  readonly byteRangeLength: number;
}

export type SignatureRefusal =
  | { readonly reason: 'unreadable' | 'encrypted'; readonly cause?: string }
  | { readonly reason: 'certified-no-changes' }
  | { readonly reason: 'field-exists'; readonly name: string }
  | { readonly reason: 'no-such-page'; readonly pageCount: number }
  | { readonly reason: 'box-outside-page'; readonly pageWidth: number; readonly pageHeight: number };

export class SignatureRefused extends Error {
  constructor(readonly refusal: SignatureRefusal) {
    super(refusal.reason);
    this.name = 'SignatureRefused';
  }
}

/** Ten characters, so that any offset up to 9,999,999,999 fits in its place. */
const PLACEHOLDER = '**********';

export async function placeSignature(original: Uint8Array, field: SignatureField): Promise<PlacedSignature> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(original, { forIncrementalUpdate: true, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new SignatureRefused({ reason: /encrypt/i.test(cause) ? 'encrypted' : 'unreadable', cause });
  }
  if (doc.isEncrypted) throw new SignatureRefused({ reason: 'encrypted' });
  if (forbidsChanges(doc)) throw new SignatureRefused({ reason: 'certified-no-changes' });
  if (doc.getPageCount() === 0) throw new SignatureRefused({ reason: 'unreadable', cause: 'no pages' });

  const context = doc.context;
  const acroForm = existingAcroForm(doc);
  const fields = acroForm?.lookupMaybe(PDFName.of('Fields'), PDFArray);
  const existingNames = new Set((fields?.asArray() ?? []).map((ref) => context.lookupMaybe(ref, PDFDict)?.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString)?.decodeText()));
  const name = field.fieldName ?? firstFreeName(existingNames);
  if (existingNames.has(name)) throw new SignatureRefused({ reason: 'field-exists', name });

  const signature = context.register(
    context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'ETSI.CAdES.detached',
      ByteRange: [0, PDFName.of(PLACEHOLDER), PDFName.of(PLACEHOLDER), PDFName.of(PLACEHOLDER)],
      Contents: PDFHexString.of('0'.repeat(field.contentsBytes * 2)),
      M: PDFString.fromDate(field.signedAt),
      ...(field.reason === undefined ? {} : { Reason: PDFHexString.fromText(field.reason) }),
      ...(field.location === undefined ? {} : { Location: PDFHexString.fromText(field.location) }),
      ...(field.contactInfo === undefined ? {} : { ContactInfo: PDFHexString.fromText(field.contactInfo) }),
    }),
  );
  const box = field.appearance;
  if (box !== undefined && box.page >= doc.getPageCount()) throw new SignatureRefused({ reason: 'no-such-page', pageCount: doc.getPageCount() });
  const page = doc.getPage(box?.page ?? 0);
  let placement: { Rect: number[]; F: number; AP?: { N: PDFRef } } = { Rect: [0, 0, 0, 0], F: 132 };
  if (box !== undefined) {
    // Crop box: what a viewer shows, and what the reader's coordinates are measured from.
    const crop = page.getCropBox();
    if (box.x + box.width > crop.width || box.y + box.height > crop.height) {
      throw new SignatureRefused({ reason: 'box-outside-page', pageWidth: crop.width, pageHeight: crop.height });
    }
    const left = crop.x + box.x;
    const bottom = crop.y + crop.height - box.y - box.height;
    const appearance = await signatureAppearance(doc, box.width, box.height, box.lines, box.fallbackFont);
    // F 4: Print (ISO 32000-2 section 12.5.3), so the box is printed as shown.
    placement = { Rect: [left, bottom, left + box.width, bottom + box.height], F: 4, AP: { N: appearance } };
  }
  // Without a box: an invisible signature, a widget with an empty /Rect (ISO 32000-2 section 12.7.5.5).
  const widget = context.register(
    context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', ...placement, V: signature, T: PDFHexString.fromText(name), P: page.ref }),
  );
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  if (annots === undefined) page.node.set(PDFName.of('Annots'), context.obj([widget]));
  else annots.push(widget);
  markChanged(doc, page.ref, page.node.get(PDFName.of('Annots')));

  if (acroForm === undefined) {
    const created = context.register(context.obj({ SigFlags: 3, Fields: [widget] }));
    doc.catalog.set(PDFName.of('AcroForm'), created);
    markChanged(doc, created, undefined);
    markChanged(doc, context.trailerInfo.Root as PDFRef, undefined);
  } else {
    acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(3));
    if (fields === undefined) acroForm.set(PDFName.of('Fields'), context.obj([widget]));
    else fields.push(widget);
    markChanged(doc, doc.catalog.get(PDFName.of('AcroForm')), acroForm.get(PDFName.of('Fields')));
    markChanged(doc, context.trailerInfo.Root as PDFRef, undefined);
  }
  // No object streams in the update: the signature dictionary must be plain bytes in the file to fill in.
  const bytes = await doc.commit({ useObjectStreams: false });
  return locatePlaceholders(bytes, original.length, field.contentsBytes);
}

/** Whether a certification signature's DocMDP transform says P 1: no changes at all (ISO 32000-2 section 12.8.2.2). */
function forbidsChanges(doc: PDFDocument): boolean {
  const perms = doc.catalog.lookupMaybe(PDFName.of('Perms'), PDFDict);
  const docMdp = perms?.lookupMaybe(PDFName.of('DocMDP'), PDFDict);
  if (docMdp === undefined) return false;
  const references = docMdp.lookupMaybe(PDFName.of('Reference'), PDFArray);
  for (const reference of references?.asArray() ?? []) {
    const dict = doc.context.lookupMaybe(reference, PDFDict);
    const params = dict?.lookupMaybe(PDFName.of('TransformParams'), PDFDict);
    const p = params?.lookupMaybe(PDFName.of('P'), PDFNumber);
    // P defaults to 2 when absent (section 12.8.2.2.2, Table 257).
    if (dict?.lookupMaybe(PDFName.of('TransformMethod'), PDFName)?.asString() === '/DocMDP' && p?.asNumber() === 1) return true;
  }
  return false;
}

function existingAcroForm(doc: PDFDocument): PDFDict | undefined {
  return doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
}

function firstFreeName(taken: ReadonlySet<string | undefined>): string {
  for (let i = 1; ; i++) if (!taken.has(`Signature${i}`)) return `Signature${i}`;
}

/** Objects the update must write again: an indirect dictionary, or the indirect array it holds. */
function markChanged(doc: PDFDocument, ...objects: ReadonlyArray<unknown>): void {
  const snapshot = doc.context.snapshot;
  if (snapshot === undefined) return;
  for (const object of objects) if (object instanceof PDFRef) snapshot.markRefForSave(object);
}

function locatePlaceholders(bytes: Uint8Array, updateStart: number, contentsBytes: number): PlacedSignature {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const marker = `/ByteRange [ 0 /${PLACEHOLDER} /${PLACEHOLDER} /${PLACEHOLDER} ]`;
  const byteRangeAt = text.indexOf(marker, updateStart);
  const contentsStart = text.indexOf(`<${'0'.repeat(contentsBytes * 2)}>`, updateStart);
  if (byteRangeAt < 0 || contentsStart < 0) throw new Error('pdf-signature: pdf-lib wrote the placeholders differently than expected');
  return { bytes, contentsStart, contentsEnd: contentsStart + contentsBytes * 2 + 2, byteRangeAt, byteRangeLength: marker.length };
}
