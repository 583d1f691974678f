// A document opened for optimize's in-place rewrite, behind this seam (one
// of the modules that may import pdf-lib): its pages' content and resources
// for the placement scan, its image streams as plain facts and bytes, and
// the edits optimize makes (an image replaced, duplicate objects stored
// once, metadata and signatures removed). No pdf-lib type leaves this
// module: resources travel as an opaque handle, objects as their numbers.
// Serialising is plain (no object streams): qpdf writes the final file.
import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { createHash } from 'node:crypto';
import type { Matrix } from '../read/matrix.js';
import type { ContentToWalk, XObjectTarget } from '../docops/content-walk.js';

/** A page's or form's resource dictionary, opaque outside this module. */
export type ResourcesHandle = { readonly __resources: unique symbol };

/** What an image XObject's dictionary says, in plain values. */
export interface ImageStream {
  readonly id: number;
  readonly width: number;
  readonly height: number;
  readonly bitsPerComponent: number | undefined;
  /** Colour components when the space is DeviceGray/RGB/CMYK or ICCBased with /N; undefined for Indexed, Separation, Lab, ... */
  readonly components: number | undefined;
  /** The filters, outermost first (names without the slash). */
  readonly filters: readonly string[];
  /** Flate's /DecodeParms /Predictor (1 when none). */
  readonly predictor: number;
  /** DecodeParms entries other than the predictor's own (DCT's ColorTransform, ...): such an image is left alone. */
  readonly otherDecodeParms: boolean;
  /** /Decode present and not the default mapping. */
  readonly customDecode: boolean;
  readonly imageMask: boolean;
  /** /Mask present (a colour key or a stencil). */
  readonly masked: boolean;
  /** The soft mask's object number, when it has one. */
  readonly smask: number | undefined;
  /** A soft mask with /Matte (pre-multiplied): left alone. */
  readonly matte: boolean;
  /** The stream's stored (encoded) bytes. */
  readonly bytes: Uint8Array;
}

export interface ImageReplacement {
  readonly bytes: Uint8Array;
  readonly filter: 'DCTDecode' | 'FlateDecode';
  readonly width: number;
  readonly height: number;
  /** The samples are now DeviceGray (the grayscale option); otherwise the colour space stays as it was. */
  readonly gray: boolean;
}

export type OpenResult = { ok: true; document: RewritableDocument } | { ok: false; reason: 'encrypted' | 'unreadable'; cause?: string };

export async function openRewritable(bytes: Uint8Array): Promise<OpenResult> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: Number.POSITIVE_INFINITY });
    doc.getPages();
  } catch (error) {
    if ((error as Error).constructor.name === 'EncryptedPDFError') return { ok: false, reason: 'encrypted' };
    return { ok: false, reason: 'unreadable', cause: (error as Error).message.slice(0, 300) };
  }
  return { ok: true, document: new RewritableDocument(doc) };
}

const N = (name: string) => PDFName.of(name);

/** A /ByteRange of four numbers, as untrusted/pdf-scan.ts's countSignatures reads it in the bytes. */
function isSignatureDictionary(dict: PDFDict): boolean {
  const range = dict.get(N('ByteRange'));
  return range instanceof PDFArray && range.size() === 4 && range.asArray().every((value) => value instanceof PDFNumber);
}

export class RewritableDocument {
  readonly #refs = new Map<number, PDFRef>();
  /** A page's or form's content stream could not be decoded: the placements read are not every placement. */
  contentUnreadable = false;

  constructor(private readonly doc: PDFDocument) {
    for (const [ref] of doc.context.enumerateIndirectObjects()) this.#refs.set(ref.objectNumber, ref);
  }

  get pageCount(): number {
    return this.doc.getPageCount();
  }

  /** Each page's content (its streams decoded and joined) and resources; a page whose content cannot be decoded is left out (and contentUnreadable set). */
  *pageContents(): Iterable<ContentToWalk<ResourcesHandle>> {
    for (const page of this.doc.getPages()) {
      const content = this.#decodedContents(page.node.Contents());
      if (content === undefined) continue;
      yield { content, resources: page.node.Resources() as unknown as ResourcesHandle | undefined };
    }
  }

  /** The XObject `name` in `resources`, for the placement scan. */
  readonly xobject = (resources: ResourcesHandle, name: string): XObjectTarget<ResourcesHandle> | undefined => {
    const context = this.doc.context;
    const xobjects = context.lookup((resources as unknown as PDFDict).get(N('XObject')));
    if (!(xobjects instanceof PDFDict)) return undefined;
    let entry = xobjects.get(N(name));
    if (entry === undefined) entry = [...xobjects.entries()].find(([key]) => key.decodeText() === name)?.[1];
    if (!(entry instanceof PDFRef)) return undefined;
    const stream = context.lookup(entry);
    if (!(stream instanceof PDFRawStream)) return undefined;
    const subtype = stream.dict.get(N('Subtype'));
    if (subtype === N('Image')) return { kind: 'image', id: entry.objectNumber };
    if (subtype !== N('Form')) return undefined;
    const inner = context.lookup(stream.dict.get(N('Resources')));
    return {
      kind: 'form',
      id: entry.objectNumber,
      matrix: this.#matrix(stream.dict.get(N('Matrix'))),
      content: () => this.#decodedContents(stream) ?? new Uint8Array(0),
      resources: inner instanceof PDFDict ? (inner as unknown as ResourcesHandle) : undefined,
    };
  };

  /** Every image XObject stored as an indirect stream. */
  images(): ImageStream[] {
    const found: ImageStream[] = [];
    for (const [ref, object] of this.doc.context.enumerateIndirectObjects()) {
      if (!(object instanceof PDFRawStream) || object.dict.get(N('Subtype')) !== N('Image')) continue;
      found.push(this.#imageOf(ref, object));
    }
    return found;
  }

  replaceImage(id: number, replacement: ImageReplacement): void {
    const ref = this.#refs.get(id);
    const stream = ref === undefined ? undefined : this.doc.context.lookup(ref);
    if (ref === undefined || !(stream instanceof PDFRawStream)) throw new Error(`pdf-rewrite: no image stream ${id}`);
    const dict = stream.dict.clone(this.doc.context);
    dict.set(N('Width'), PDFNumber.of(replacement.width));
    dict.set(N('Height'), PDFNumber.of(replacement.height));
    dict.set(N('BitsPerComponent'), PDFNumber.of(8));
    dict.set(N('Filter'), N(replacement.filter));
    dict.delete(N('DecodeParms'));
    dict.delete(N('Decode'));
    if (replacement.gray) dict.set(N('ColorSpace'), N('DeviceGray'));
    this.doc.context.assign(ref, PDFRawStream.of(dict, replacement.bytes));
  }

  /**
   * Removes every signature: each signature field's value (the field stays,
   * unsigned, ready to be signed again), what vouched for them (/Perms:
   * usage-rights and certification signatures; /SigFlags), and any other
   * reference to a signature dictionary, so none stays reachable and the
   * final qpdf run, which writes reachable objects only, drops them all. A
   * signature dictionary is one with a filled-in /ByteRange, the definition
   * every route counts by (untrusted/pdf-scan.ts countSignatures).
   */
  removeSignatures(): void {
    for (const field of this.#signatureFields()) field.delete(N('V'));
    this.doc.catalog.delete(N('Perms'));
    const acroForm = this.doc.context.lookup(this.doc.catalog.get(N('AcroForm')));
    if (acroForm instanceof PDFDict) acroForm.delete(N('SigFlags'));
    const signatures = new Set<PDFRef>();
    for (const [ref, object] of this.doc.context.enumerateIndirectObjects()) if (object instanceof PDFDict && isSignatureDictionary(object)) signatures.add(ref);
    if (signatures.size === 0) return;
    const unlink = (object: PDFObject, depth: number): void => {
      const dict = object instanceof PDFStream ? object.dict : object;
      if (dict instanceof PDFDict) {
        for (const [key, value] of dict.entries()) {
          if (value instanceof PDFRef && signatures.has(value)) dict.delete(key);
          else if (depth < 32 && (value instanceof PDFDict || value instanceof PDFArray)) unlink(value, depth + 1);
        }
      } else if (dict instanceof PDFArray && depth < 32) {
        for (const value of dict.asArray()) if (value instanceof PDFDict || value instanceof PDFArray) unlink(value, depth + 1);
      }
    };
    for (const [ref, object] of this.doc.context.enumerateIndirectObjects()) if (!signatures.has(ref)) unlink(object, 0);
  }

  /**
   * The PDF/A part the document claims (`pdfaid:part` in its XMP, ISO
   * 19005-1 6.7.11), or undefined. Read from the raw XMP text: the
   * identification is one property, and a claim written any other way is
   * not one a validator reads either.
   */
  pdfaPart(): number | undefined {
    const metadata = this.doc.context.lookup(this.doc.catalog.get(N('Metadata')));
    if (!(metadata instanceof PDFRawStream)) return undefined;
    let xmp: string;
    try {
      xmp = Buffer.from(decodePDFRawStream(metadata).decode()).toString('utf8');
    } catch {
      return undefined;
    }
    const part = /pdfaid:part\s*(?:=\s*["']|>)\s*(\d)/.exec(xmp)?.[1];
    return part === undefined ? undefined : Number(part);
  }

  /**
   * The document information dictionary, XMP metadata streams, page-piece
   * data and page thumbnails; `keepDocumentXmp` keeps the catalog's XMP
   * (a PDF/A file's identification lives there).
   */
  removeMetadata(keepDocumentXmp: boolean): void {
    const context = this.doc.context;
    context.trailerInfo.Info = undefined;
    for (const [, object] of context.enumerateIndirectObjects()) {
      const dict = object instanceof PDFStream ? object.dict : object instanceof PDFDict ? object : undefined;
      if (dict === undefined || (keepDocumentXmp && dict === this.doc.catalog)) continue;
      dict.delete(N('Metadata'));
      dict.delete(N('PieceInfo'));
      if (dict.get(N('Type')) === N('Page')) dict.delete(N('Thumb'));
    }
  }

  /**
   * Stores identical streams, fonts, font descriptors, graphics states and
   * encodings once: every reference to a copy is pointed at the first, and
   * the copies dropped. Repeated until nothing changes, since a font is
   * only identical to another once their font files have been merged.
   * Pages, annotations, fields and outline items are never merged: each
   * must stay its own object even when two look alike.
   */
  deduplicate(): number {
    const context = this.doc.context;
    let merged = 0;
    for (let pass = 0; pass < 4; pass++) {
      const first = new Map<string, PDFRef>();
      const replace = new Map<PDFRef, PDFRef>();
      for (const [ref, object] of context.enumerateIndirectObjects()) {
        const key = dedupeKey(object);
        if (key === undefined) continue;
        const kept = first.get(key);
        if (kept === undefined) first.set(key, ref);
        else replace.set(ref, kept);
      }
      if (replace.size === 0) break;
      for (const [, object] of context.enumerateIndirectObjects()) repoint(object, replace);
      for (const [key, value] of Object.entries(context.trailerInfo)) {
        if (value instanceof PDFRef && replace.has(value)) (context.trailerInfo as Record<string, PDFObject | undefined>)[key] = replace.get(value);
        else if (value !== undefined) repoint(value as PDFObject, replace);
      }
      for (const ref of replace.keys()) context.delete(ref);
      merged += replace.size;
    }
    return merged;
  }

  /** Plain serialisation (qpdf writes object streams afterwards). */
  async save(): Promise<Uint8Array> {
    return this.doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY, updateFieldAppearances: false, addDefaultPage: false });
  }

  #signatureFields(): PDFDict[] {
    const context = this.doc.context;
    const acroForm = context.lookup(this.doc.catalog.get(N('AcroForm')));
    const fields = acroForm instanceof PDFDict ? context.lookup(acroForm.get(N('Fields'))) : undefined;
    const found: PDFDict[] = [];
    const seen = new Set<PDFObject>();
    const visit = (entry: PDFObject | undefined, inheritedSig: boolean, depth: number): void => {
      const field = context.lookup(entry);
      if (!(field instanceof PDFDict) || seen.has(field) || depth > 32) return;
      seen.add(field);
      const isSig = field.get(N('FT')) === N('Sig') || (field.get(N('FT')) === undefined && inheritedSig);
      if (isSig && field.get(N('V')) !== undefined) found.push(field);
      const kids = context.lookup(field.get(N('Kids')));
      if (kids instanceof PDFArray) for (const kid of kids.asArray()) visit(kid, isSig, depth + 1);
    };
    if (fields instanceof PDFArray) for (const entry of fields.asArray()) visit(entry, false, 0);
    return found;
  }

  #decodedContents(contents: PDFObject | undefined): Uint8Array | undefined {
    const context = this.doc.context;
    const resolved = context.lookup(contents);
    const streams = resolved instanceof PDFArray ? resolved.asArray().map((entry) => context.lookup(entry)) : [resolved];
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      if (!(stream instanceof PDFRawStream)) continue;
      try {
        parts.push(decodePDFRawStream(stream).decode(), SEPARATOR);
      } catch {
        this.contentUnreadable = true;
        return undefined;
      }
    }
    return Buffer.concat(parts);
  }

  #matrix(value: PDFObject | undefined): Matrix {
    const array = this.doc.context.lookup(value);
    if (!(array instanceof PDFArray) || array.size() !== 6) return [1, 0, 0, 1, 0, 0];
    const numbers = array.asArray().map((entry) => this.doc.context.lookup(entry));
    return numbers.every((n) => n instanceof PDFNumber) ? (numbers.map((n) => (n as PDFNumber).asNumber()) as unknown as Matrix) : [1, 0, 0, 1, 0, 0];
  }

  #imageOf(ref: PDFRef, stream: PDFRawStream): ImageStream {
    const context = this.doc.context;
    const dict = stream.dict;
    const number = (key: string) => {
      const value = context.lookup(dict.get(N(key)));
      return value instanceof PDFNumber ? value.asNumber() : undefined;
    };
    const filterValue = context.lookup(dict.get(N('Filter')));
    const filters = filterValue instanceof PDFName ? [filterValue.decodeText()] : filterValue instanceof PDFArray ? filterValue.asArray().map((f) => (context.lookup(f) instanceof PDFName ? (context.lookup(f) as PDFName).decodeText() : '?')) : [];
    let parms = context.lookup(dict.get(N('DecodeParms')));
    if (parms instanceof PDFArray) parms = parms.size() === 1 ? context.lookup(parms.get(0)) : parms;
    let predictor = 1;
    let otherDecodeParms = parms !== undefined && !(parms instanceof PDFDict);
    const components = this.#components(dict.get(N('ColorSpace')));
    if (parms instanceof PDFDict) {
      // The predictor's row layout must be the image's own (ISO 32000-1, table 8: Colors, BitsPerComponent, Columns).
      const expected: Record<string, number | undefined> = { Colors: components, BitsPerComponent: number('BitsPerComponent'), Columns: number('Width') };
      for (const [key, value] of parms.entries()) {
        const name = key.decodeText();
        const resolved = context.lookup(value);
        if (name === 'Predictor' && resolved instanceof PDFNumber) predictor = resolved.asNumber();
        else if (!(name in expected) || !(resolved instanceof PDFNumber) || resolved.asNumber() !== expected[name]) otherDecodeParms = true;
      }
      if (predictor > 1 && ['Colors', 'BitsPerComponent', 'Columns'].some((key) => parms.get(N(key)) === undefined && expected[key] !== 1)) otherDecodeParms = true;
    }
    const decode = context.lookup(dict.get(N('Decode')));
    const customDecode = decode instanceof PDFArray && decode.asArray().some((entry, i) => {
      const value = context.lookup(entry);
      return !(value instanceof PDFNumber) || value.asNumber() !== (i % 2 === 0 ? 0 : 1);
    });
    const imageMask = context.lookup(dict.get(N('ImageMask')));
    const smask = dict.get(N('SMask'));
    return {
      id: ref.objectNumber,
      width: number('Width') ?? 0,
      height: number('Height') ?? 0,
      bitsPerComponent: number('BitsPerComponent'),
      components,
      filters,
      predictor,
      otherDecodeParms,
      customDecode,
      imageMask: imageMask instanceof PDFBool && imageMask.asBoolean(),
      masked: dict.get(N('Mask')) !== undefined,
      smask: smask instanceof PDFRef ? smask.objectNumber : undefined,
      matte: dict.get(N('Matte')) !== undefined,
      bytes: stream.contents,
    };
  }

  #components(value: PDFObject | undefined): number | undefined {
    const context = this.doc.context;
    const space = context.lookup(value);
    if (space instanceof PDFName) return DEVICE_COMPONENTS[space.decodeText()];
    if (space instanceof PDFArray && space.size() === 2 && context.lookup(space.get(0)) === N('ICCBased')) {
      const profile = context.lookup(space.get(1));
      const n = profile instanceof PDFStream ? context.lookup(profile.dict.get(N('N'))) : undefined;
      return n instanceof PDFNumber ? n.asNumber() : undefined;
    }
    return undefined;
  }
}

const SEPARATOR = new Uint8Array([10]);
const DEVICE_COMPONENTS: Readonly<Record<string, number>> = { DeviceGray: 1, DeviceRGB: 3, DeviceCMYK: 4 };
const MERGEABLE_TYPES = new Set(['Font', 'FontDescriptor', 'ExtGState', 'Encoding']);
/** Streams that must stay their own: cross-reference and object streams are rewritten by the writer anyway. */
const UNMERGEABLE_STREAMS = new Set(['XRef', 'ObjStm']);

/** The object's bytes as a key when it may be shared, undefined when it must stay its own. */
function dedupeKey(object: PDFObject): string | undefined {
  if (object instanceof PDFRawStream) {
    const type = object.dict.get(N('Type'));
    if (type instanceof PDFName && UNMERGEABLE_STREAMS.has(type.decodeText())) return undefined;
    const dict = object.dict.clone();
    dict.delete(N('Length'));
    return createHash('sha256').update(dict.toString()).update('\0stream\0').update(object.contents).digest('base64');
  }
  if (object instanceof PDFDict) {
    const type = object.get(N('Type'));
    if (!(type instanceof PDFName) || !MERGEABLE_TYPES.has(type.decodeText())) return undefined;
    return createHash('sha256').update(object.toString()).digest('base64');
  }
  return undefined;
}

/** Points every reference inside `object` that `replace` names at its replacement. */
function repoint(object: PDFObject, replace: ReadonlyMap<PDFRef, PDFRef>): void {
  const dict = object instanceof PDFStream ? object.dict : object;
  if (dict instanceof PDFDict) {
    for (const [key, value] of dict.entries()) {
      if (value instanceof PDFRef) {
        const to = replace.get(value);
        if (to !== undefined) dict.set(key, to);
      } else repoint(value, replace);
    }
  } else if (dict instanceof PDFArray) {
    for (let i = 0; i < dict.size(); i++) {
      const value = dict.get(i);
      if (value instanceof PDFRef) {
        const to = replace.get(value);
        if (to !== undefined) dict.set(i, to);
      } else repoint(value, replace);
    }
  }
}
