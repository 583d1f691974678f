// The redaction's object-level access to a PDF, with pdf-lib behind this
// seam (workers/docops/redact/ works on the neutral shapes it exports): each
// page's decoded content and resources (fonts' widths, form and image
// XObjects), its annotations, and the writing back of rewritten streams,
// copies of forms and images that changed, and the painted boxes.
//
// The output is a fresh file, never an incremental update: pdf-lib parses
// every object in the file, earlier revisions' objects included, so before
// saving, everything the new document does not reach from its catalog is
// deleted (an object only a superseded revision used would otherwise be
// written again, text and all). The document information dictionary, the
// catalog's and pages' XMP metadata, page thumbnails (/Thumb, a picture of
// the unredacted page) and /PieceInfo (private application data) are
// dropped; the output is not encrypted.
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream, decodePDFRawStream, type PDFObject, type PDFPage } from '@cantoo/pdf-lib';
import { readFontWidths, type RedactionFont } from './pdf-font-widths.js';
import { redactImagePixels, type PixelRect } from './pdf-image-pixels.js';

export type { FontCode, RedactionFont } from './pdf-font-widths.js';
export type { PixelRect } from './pdf-image-pixels.js';

export type Matrix6 = readonly [number, number, number, number, number, number];

export interface FormXObject {
  readonly kind: 'form';
  readonly matrix: Matrix6;
  readonly bbox: readonly [number, number, number, number];
  content(): Uint8Array;
  /** The form's own resources, or the scope that draws it when it has none. */
  readonly resources: ResourceScope;
}

export interface ImageXObject {
  readonly kind: 'image';
  readonly width: number;
  readonly height: number;
}

export type XObject = FormXObject | ImageXObject;

/** A resources dictionary. Changes go to a copy of it, so every other page or form that shares it keeps the original. */
export interface ResourceScope {
  font(name: string): RedactionFont | null;
  xobject(name: string): XObject | null;
  /** Whether this scope's dictionary was copied and added to. */
  changed(): boolean;
  /** A copy of `form` with this content (and its resources' changes), under a new name in this scope. */
  addForm(form: FormXObject, content: Uint8Array): string;
  /** A copy of `image` with the pixels in `rects` set to `fill`, under a new name; null when its encoding cannot be rewritten. */
  redactImage(image: ImageXObject, rects: readonly PixelRect[], fill: readonly [number, number, number]): Promise<string | null>;
}

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
    doc = await PDFDocument.load(bytes, { password, updateMetadata: false, ignoreEncryption: password === undefined, parseSpeed: Number.POSITIVE_INFINITY });
  } catch (error) {
    throw new UnreadablePdf(error instanceof Error ? error.message : String(error));
  }
  const fonts = await (scratch ??= PDFDocument.create());
  const removedAnnotations = new Set<PDFObject>();
  const pages = doc.getPages().map((page) => new Page(doc, page, fonts, removedAnnotations));
  return { pages, save: () => save(doc, removedAnnotations) };
}

class Scope implements ResourceScope {
  private copy: PDFDict | null = null;
  private readonly fonts = new Map<string, RedactionFont | null>();
  private counter = 0;

  constructor(
    private readonly doc: PDFDocument,
    private dict: PDFDict | undefined,
    private readonly scratch: PDFDocument,
  ) {}

  /** The dictionary to write: the copy when changed. */
  current(): PDFDict | undefined {
    return this.copy ?? this.dict;
  }

  changed(): boolean {
    return this.copy !== null;
  }

  font(name: string): RedactionFont | null {
    if (!this.fonts.has(name)) {
      const dict = this.lookup(this.category('Font')?.get(PDFName.of(name)));
      this.fonts.set(name, dict instanceof PDFDict ? readFontWidths(this.doc, dict, this.scratch) : null);
    }
    return this.fonts.get(name) ?? null;
  }

  xobject(name: string): XObject | null {
    const stream = this.lookup(this.category('XObject')?.get(PDFName.of(name)));
    if (!(stream instanceof PDFRawStream)) return null;
    const dict = stream.dict;
    const subtype = this.lookup(dict.get(PDFName.of('Subtype')));
    if (!(subtype instanceof PDFName)) return null;
    if (subtype.decodeText() === 'Image') {
      return new ImageHandle(stream, this.numberAt(dict, 'Width') ?? 0, this.numberAt(dict, 'Height') ?? 0);
    }
    if (subtype.decodeText() !== 'Form') return null;
    const matrix = this.numbers(dict.get(PDFName.of('Matrix')), 6) ?? [1, 0, 0, 1, 0, 0];
    const bbox = this.numbers(dict.get(PDFName.of('BBox')), 4) ?? [0, 0, 0, 0];
    const own = this.lookup(dict.get(PDFName.of('Resources')));
    const resources = own instanceof PDFDict ? new Scope(this.doc, own, this.scratch) : this;
    return new FormHandle(stream, matrix as unknown as Matrix6, bbox as unknown as readonly [number, number, number, number], resources);
  }

  addForm(form: FormXObject, content: Uint8Array): string {
    if (!(form instanceof FormHandle)) throw new Error('addForm: not a form of this document');
    const dict = form.stream.dict.clone(this.doc.context);
    for (const key of ['Filter', 'DecodeParms', 'Length']) dict.delete(PDFName.of(key));
    const resources = form.resources instanceof Scope && form.resources !== this ? form.resources.current() : undefined;
    if (resources !== undefined) dict.set(PDFName.of('Resources'), resources);
    const copy = this.doc.context.flateStream(content, {});
    for (const [key, value] of dict.entries()) copy.dict.set(key, value);
    return this.bind(this.doc.context.register(copy));
  }

  async redactImage(image: ImageXObject, rects: readonly PixelRect[], fill: readonly [number, number, number]): Promise<string | null> {
    if (!(image instanceof ImageHandle)) throw new Error('redactImage: not an image of this document');
    const copy = await redactImagePixels(this.doc, image.stream, rects, fill);
    return copy === null ? null : this.bind(this.doc.context.register(copy));
  }

  /** Adds `ref` under a fresh name to a copy of this dictionary (and of its XObject dictionary). */
  private bind(ref: PDFRef): string {
    if (this.copy === null) {
      this.copy = this.dict === undefined ? this.doc.context.obj({}) : this.dict.clone(this.doc.context);
      const xobjects = this.lookup(this.copy.get(PDFName.of('XObject')));
      this.copy.set(PDFName.of('XObject'), xobjects instanceof PDFDict ? xobjects.clone(this.doc.context) : this.doc.context.obj({}));
    }
    const xobjects = this.copy.get(PDFName.of('XObject')) as PDFDict;
    let name: string;
    do name = `Redacted${++this.counter}`;
    while (xobjects.has(PDFName.of(name)));
    xobjects.set(PDFName.of(name), ref);
    return name;
  }

  private category(key: string): PDFDict | undefined {
    const value = this.lookup(this.current()?.get(PDFName.of(key)));
    return value instanceof PDFDict ? value : undefined;
  }

  private lookup(value: PDFObject | undefined): PDFObject | undefined {
    return value === undefined ? undefined : this.doc.context.lookup(value);
  }

  private numberAt(dict: PDFDict, key: string): number | undefined {
    const value = this.lookup(dict.get(PDFName.of(key)));
    return value instanceof PDFNumber ? value.asNumber() : undefined;
  }

  private numbers(value: PDFObject | undefined, count: number): number[] | undefined {
    const array = this.lookup(value);
    if (!(array instanceof PDFArray) || array.size() !== count) return undefined;
    const out = array.asArray().map((item) => this.lookup(item));
    return out.every((item) => item instanceof PDFNumber) ? out.map((item) => (item as PDFNumber).asNumber()) : undefined;
  }
}

class FormHandle implements FormXObject {
  readonly kind = 'form';

  constructor(
    readonly stream: PDFRawStream,
    readonly matrix: Matrix6,
    readonly bbox: readonly [number, number, number, number],
    readonly resources: ResourceScope,
  ) {}

  content(): Uint8Array {
    return decodePDFRawStream(this.stream).decode();
  }
}

class ImageHandle implements ImageXObject {
  readonly kind = 'image';

  constructor(
    readonly stream: PDFRawStream,
    readonly width: number,
    readonly height: number,
  ) {}
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

async function save(doc: PDFDocument, removedAnnotations: ReadonlySet<PDFObject>): Promise<Uint8Array> {
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
