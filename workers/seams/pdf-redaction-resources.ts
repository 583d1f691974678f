// A resources dictionary as the redaction sees it (part of the pdf-lib seam
// pdf-redaction.ts): the fonts' widths and the form and image XObjects a
// content stream names, and copy-on-write changes. A changed form or image
// is added under a new name to a copy of the dictionary, so every other page
// or form that shares the original keeps it.
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream, type PDFDocument, type PDFObject, type PDFRef } from '@cantoo/pdf-lib';
import { readFontWidths, type RedactionFont } from './pdf-font-widths.js';
import { redactImagePixels, type PixelRect } from './pdf-image-pixels.js';

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

export class Scope implements ResourceScope {
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
