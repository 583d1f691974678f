// The redaction's object-level access to a PDF, with pdf-lib behind this
// seam (workers/docops/redact/ works on the neutral shapes it exports): each
// page's decoded content and resources (fonts' widths, form and image
// XObjects), its annotations, and the writing back of rewritten streams,
// copies of forms and images that changed, and the painted boxes.
//
// The output is a fresh file, never an incremental update, without what
// could bring redacted content back (pdf-fresh-save.ts). Page thumbnails
// (/Thumb, a picture of the unredacted page), pages' XMP metadata and
// /PieceInfo are dropped here, page by page.
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFStream, decodePDFRawStream, type PDFObject, type PDFPage } from '@cantoo/pdf-lib';
import { saveFresh } from './pdf-fresh-save.js';
import { OpenFailure, openSource } from './pdf-structure.js';
import { Scope, type Matrix6, type ResourceScope } from './pdf-redaction-resources.js';

export type { FontCode, RedactionFont } from './pdf-font-widths.js';
export type { PixelRect } from './pdf-image-pixels.js';
export type { FormXObject, ImageXObject, Matrix6, ResourceScope, XObject } from './pdf-redaction-resources.js';

export interface RedactionAnnotation {
  /** /Rect in the page's user space: x0, y0, x1, y1. */
  readonly rect: readonly [number, number, number, number];
}

export interface RedactionPage {
  /** From user space to the page as displayed: points, top-left origin, y down, /Rotate and the crop box applied (pdf.js's viewport). */
  readonly display: Matrix6;
  readonly width: number;
  readonly height: number;
  /** The page's content streams, decoded and joined. */
  content(): Uint8Array;
  readonly resources: ResourceScope;
  annotations(): readonly RedactionAnnotation[];
  /** Writes the page back: its new content (or the old), then `overlay` (operators in user space), and without the annotations at `removeAnnotations`. */
  finish(content: Uint8Array | null, overlay: string, removeAnnotations: ReadonlySet<number>): void;
}

export interface RedactionDocument {
  readonly pages: readonly RedactionPage[];
  /** The fresh file (see the header). */
  save(): Promise<Uint8Array>;
}

export class UnreadablePdf extends Error {
  override readonly name = 'UnreadablePdf';
}

/** pdf-lib's scratch document for the standard fonts' AFM widths: one per worker. */
let scratch: Promise<PDFDocument> | undefined;

export async function openForRedaction(bytes: Uint8Array, password: string | undefined): Promise<RedactionDocument> {
  let doc: PDFDocument;
  try {
    // Decrypted as it loads: an encrypted file that pdf.js opened without a
    // password (only an owner password set) is read with the empty one, so
    // its streams are never taken for content while still encrypted.
    doc = await openSource(bytes, password);
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw new UnreadablePdf(error.cause ?? error.message);
  }
  const fonts = await (scratch ??= PDFDocument.create());
  const removedAnnotations = new Set<PDFObject>();
  const pages = doc.getPages().map((page) => new Page(doc, page, fonts, removedAnnotations));
  return { pages, save: () => saveFresh(doc, removedAnnotations) };
}

class Page implements RedactionPage {
  readonly display: Matrix6;
  readonly width: number;
  readonly height: number;
  readonly resources: Scope;

  constructor(
    private readonly doc: PDFDocument,
    private readonly page: PDFPage,
    scratch: PDFDocument,
    private readonly removedAnnotations: Set<PDFObject>,
  ) {
    const inherited = doc.context.lookup(page.node.getInheritableAttribute(PDFName.of('Resources')));
    this.resources = new Scope(doc, inherited instanceof PDFDict ? inherited : undefined, scratch);
    const media = page.getMediaBox();
    const crop = page.getCropBox();
    const x0 = Math.max(media.x, crop.x);
    const y0 = Math.max(media.y, crop.y);
    const x1 = Math.min(media.x + media.width, crop.x + crop.width);
    const y1 = Math.min(media.y + media.height, crop.y + crop.height);
    const view = x1 > x0 && y1 > y0 ? [x0, y0, x1, y1] : [media.x, media.y, media.x + media.width, media.y + media.height];
    const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
    this.display = viewport(view as [number, number, number, number], rotation);
    const rotated = rotation === 90 || rotation === 270;
    const w = (view[2] as number) - (view[0] as number);
    const h = (view[3] as number) - (view[1] as number);
    this.width = rotated ? h : w;
    this.height = rotated ? w : h;
  }

  content(): Uint8Array {
    const contents = this.doc.context.lookup(this.page.node.get(PDFName.of('Contents')));
    const streams = contents instanceof PDFArray ? contents.asArray().map((item) => this.doc.context.lookup(item)) : [contents];
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      if (stream instanceof PDFRawStream) parts.push(decodePDFRawStream(stream).decode(), Uint8Array.of(0x0a));
      else if (stream instanceof PDFStream) parts.push(stream.getContents(), Uint8Array.of(0x0a));
    }
    return Buffer.concat(parts);
  }

  annotations(): RedactionAnnotation[] {
    return this.annotationDicts().map(({ dict }) => {
      const rect = this.doc.context.lookup(dict?.get(PDFName.of('Rect')));
      const values = rect instanceof PDFArray ? rect.asArray().map((item) => this.doc.context.lookup(item)) : [];
      const numbers = values.map((value) => (value instanceof PDFNumber ? value.asNumber() : 0));
      const [ax = 0, ay = 0, bx = 0, by = 0] = numbers;
      return { rect: [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)] as const };
    });
  }

  finish(content: Uint8Array | null, overlay: string, removeAnnotations: ReadonlySet<number>): void {
    const node = this.page.node;
    if (content !== null || overlay !== '') {
      const body = content ?? this.content();
      const stream = this.doc.context.flateStream(Buffer.concat([Buffer.from('q\n'), body, Buffer.from(`\nQ\n${overlay}`)]));
      node.set(PDFName.of('Contents'), this.doc.context.register(stream));
    }
    if (this.resources.changed()) node.set(PDFName.of('Resources'), this.resources.current() as PDFDict);
    for (const key of ['Thumb', 'PieceInfo', 'Metadata']) node.delete(PDFName.of(key));
    if (removeAnnotations.size > 0) {
      const kept = this.annotationDicts().filter((entry, index) => {
        if (!removeAnnotations.has(index)) return true;
        this.removedAnnotations.add(entry.object);
        if (entry.dict !== undefined) this.removedAnnotations.add(entry.dict);
        return false;
      });
      // Pop-ups belong to the annotation they open: they go with it.
      const survivors = kept.filter(({ dict }) => {
        const parent = dict?.get(PDFName.of('Parent'));
        const popup = this.doc.context.lookup(dict?.get(PDFName.of('Subtype')));
        return !(popup instanceof PDFName && popup.decodeText() === 'Popup' && parent !== undefined && this.removedAnnotations.has(parent));
      });
      node.set(PDFName.of('Annots'), this.doc.context.obj(survivors.map(({ object }) => object)));
    }
  }

  private annotationDicts(): { object: PDFObject; dict: PDFDict | undefined }[] {
    const annots = this.doc.context.lookup(this.page.node.get(PDFName.of('Annots')));
    if (!(annots instanceof PDFArray)) return [];
    return annots.asArray().map((object) => {
      const dict = this.doc.context.lookup(object);
      return { object, dict: dict instanceof PDFDict ? dict : undefined };
    });
  }
}

/** pdf.js's PageViewport at scale 1 (src/display/display_utils.js), so areas mean what the reader reports. */
function viewport(view: readonly [number, number, number, number], rotation: 0 | 90 | 180 | 270): Matrix6 {
  const [x0, y0, x1, y1] = view;
  const centerX = (x0 + x1) / 2;
  const centerY = (y0 + y1) / 2;
  const [a, b, c, d] = rotation === 90 ? [0, 1, 1, 0] : rotation === 180 ? [-1, 0, 0, 1] : rotation === 270 ? [0, -1, -1, 0] : [1, 0, 0, -1];
  const offsetX = a === 0 ? Math.abs(centerY - y0) : Math.abs(centerX - x0);
  const offsetY = a === 0 ? Math.abs(centerX - x0) : Math.abs(centerY - y0);
  return [a, b, c, d, offsetX - a * centerX - c * centerY, offsetY - b * centerX - d * centerY];
}
