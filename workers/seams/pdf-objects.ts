// A read-only view of a PDF's objects for the analysis operations (the
// accessibility, PDF/A and forensic rules), behind this seam with the rest of
// pdf-lib: the file is parsed by pdf-lib, and each indirect object is turned
// into our own values (untrusted/pdf-values.ts) the first time a rule asks
// for it, so a rule never sees a library type and a 1,000-page document's
// objects are converted only as far as the rules walk.
import { decodePDFRawStream, PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfValue } from '../untrusted/pdf-values.js';
import { openSource } from './pdf-structure.js';

export interface PdfPage {
  /** 0-based. */
  readonly index: number;
  readonly dict: PdfDict;
  /** An entry the page inherits from its ancestors when it lacks it (Resources, MediaBox, CropBox, Rotate: §7.7.3.4), resolved. */
  inherited(key: 'Resources' | 'MediaBox' | 'CropBox' | 'Rotate'): PdfValue | undefined;
}

export interface PdfObjects {
  /** From the header: '1.7'. The catalog's /Version, when later, is in catalog. */
  readonly version: string;
  readonly trailer: PdfDict;
  /** The trailer has /Encrypt (the view is decrypted when the password opened it). */
  readonly encrypted: boolean;
  readonly catalog: PdfDict | undefined;
  /** In page-tree order; a damaged or cyclic tree gives the pages reachable without repeating a node. */
  readonly pages: readonly PdfPage[];
  /** Every indirect object's reference, in the order the file's cross-reference lists them. */
  refs(): readonly PdfRef[];
  /** Follows references (a chain of them too, bounded) to the object they name; undefined when it does not exist. */
  resolve(value: PdfValue | undefined): PdfValue | undefined;
  dict(value: PdfValue | undefined): PdfDict | undefined;
  stream(value: PdfValue | undefined): PdfStream | undefined;
  array(value: PdfValue | undefined): PdfValue[] | undefined;
  number(value: PdfValue | undefined): number | undefined;
  name(value: PdfValue | undefined): string | undefined;
  /** A string entry as text (PDFDocEncoding or UTF-16). */
  text(value: PdfValue | undefined): string | undefined;
}

/** Opens the file with pdf-lib; throws pdf-structure's OpenFailure (password-required, password-wrong, unreadable). */
export async function openObjects(bytes: Uint8Array, password: string | undefined): Promise<PdfObjects> {
  return new ObjectView(await openSource(bytes, password), encryptRef(bytes));
}

/**
 * The trailer's (or cross-reference stream's) /Encrypt reference as written:
 * pdf-lib deletes /Encrypt from its trailer once it has decrypted the file,
 * but the rules must still see it (PDF/UA 7.16-1 reads its /P, PDF/A
 * forbids it). The last one written is the one in force.
 */
function encryptRef(bytes: Uint8Array): PdfRef | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let found: RegExpExecArray | undefined;
  for (const match of text.matchAll(/\/Encrypt\s+(\d+)\s+(\d+)\s+R/g)) found = match;
  return found === undefined ? undefined : new PdfRef(Number(found[1]), Number(found[2]));
}

/** Longest chain of references to a reference followed: a longer one is a loop in a hostile file. */
const MAX_REF_CHAIN = 32;
/** Page-tree nodes visited at most (a tree of a million pages is past any limit the service sets). */
const MAX_PAGE_TREE_NODES = 1_000_000;

class ObjectView implements PdfObjects {
  readonly version: string;
  readonly trailer: PdfDict;
  readonly encrypted: boolean;
  readonly catalog: PdfDict | undefined;
  readonly pages: readonly PdfPage[];
  private readonly converted = new Map<string, PdfValue>();

  constructor(
    private readonly doc: PDFDocument,
    encrypt: PdfRef | undefined,
  ) {
    const header = doc.context.header.toString().match(/%PDF-(\d+\.\d+)/);
    this.version = header?.[1] ?? '1.7';
    const trailer = new Map<string, PdfValue>();
    for (const [key, value] of Object.entries(doc.context.trailerInfo)) {
      if (value !== undefined) trailer.set(key, this.convert(value as PDFObject));
    }
    if (!trailer.has('Encrypt') && encrypt !== undefined && doc.context.lookup(PDFRef.of(encrypt.num, encrypt.gen)) instanceof PDFDict) trailer.set('Encrypt', encrypt);
    this.trailer = new PdfDict(trailer);
    this.encrypted = trailer.has('Encrypt');
    this.catalog = this.dict(trailer.get('Root'));
    this.pages = this.walkPages();
  }

  refs(): readonly PdfRef[] {
    return this.doc.context.enumerateIndirectObjects().map(([ref]) => new PdfRef(ref.objectNumber, ref.generationNumber));
  }

  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let hops = 0; current instanceof PdfRef; hops++) {
      if (hops === MAX_REF_CHAIN) return undefined;
      current = this.indirect(current);
    }
    return current;
  }

  dict(value: PdfValue | undefined): PdfDict | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof PdfDict ? resolved : undefined;
  }

  stream(value: PdfValue | undefined): PdfStream | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof PdfStream ? resolved : undefined;
  }

  array(value: PdfValue | undefined): PdfValue[] | undefined {
    const resolved = this.resolve(value);
    return Array.isArray(resolved) ? resolved : undefined;
  }

  number(value: PdfValue | undefined): number | undefined {
    const resolved = this.resolve(value);
    return typeof resolved === 'number' ? resolved : undefined;
  }

  name(value: PdfValue | undefined): string | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof PdfName ? resolved.name : undefined;
  }

  text(value: PdfValue | undefined): string | undefined {
    const resolved = this.resolve(value);
    return resolved instanceof PdfString ? resolved.text : undefined;
  }

  private indirect(ref: PdfRef): PdfValue | undefined {
    const key = `${ref.num} ${ref.gen}`;
    if (this.converted.has(key)) return this.converted.get(key);
    const object = this.doc.context.lookup(PDFRef.of(ref.num, ref.gen));
    const value = object === undefined ? undefined : this.convert(object, ref);
    if (value !== undefined) this.converted.set(key, value);
    return value;
  }

  /** One library object as our values; references stay references, converted when resolved. */
  private convert(object: PDFObject, self?: PdfRef): PdfValue {
    if (object instanceof PDFRef) return new PdfRef(object.objectNumber, object.generationNumber);
    if (object instanceof PDFNumber) return object.asNumber();
    if (object instanceof PDFName) return new PdfName(object.decodeText());
    if (object instanceof PDFBool) return object.asBoolean();
    if (object instanceof PDFString) return new PdfString(object.asBytes(), false);
    if (object instanceof PDFHexString) return new PdfString(object.asBytes(), true);
    if (object instanceof PDFArray) return object.asArray().map((item) => this.convert(item));
    if (object instanceof PDFDict) return this.convertDict(object, self);
    if (object instanceof PDFRawStream) {
      const raw = object;
      return new PdfStream(this.convertDict(raw.dict, self), raw.contents, () => decodeStream(raw));
    }
    // PDFNull, and the objects pdf-lib could not parse (PDFInvalidObject): null, as a reader treats them.
    return null;
  }

  private convertDict(dict: PDFDict, self?: PdfRef): PdfDict {
    const entries = new Map<string, PdfValue>();
    for (const [key, value] of dict.entries()) entries.set(key.decodeText(), this.convert(value));
    return new PdfDict(entries, self);
  }

  private walkPages(): PdfPage[] {
    const pages: PdfPage[] = [];
    const seen = new Set<PdfDict>();
    const walk = (node: PdfDict, ancestors: readonly PdfDict[]): void => {
      if (seen.has(node) || seen.size >= MAX_PAGE_TREE_NODES) return;
      seen.add(node);
      const kids = this.array(node.get('Kids'));
      if (node.name('Type') === 'Page' || (kids === undefined && node.name('Type') !== 'Pages')) {
        pages.push(this.page(pages.length, node, ancestors));
        return;
      }
      for (const kid of kids ?? []) {
        const child = this.dict(kid);
        if (child !== undefined) walk(child, [node, ...ancestors]);
      }
    };
    const root = this.dict(this.catalog?.get('Pages'));
    if (root !== undefined) walk(root, []);
    return pages;
  }

  private page(index: number, dict: PdfDict, ancestors: readonly PdfDict[]): PdfPage {
    return {
      index,
      dict,
      inherited: (key) => {
        for (const node of [dict, ...ancestors]) {
          if (node.has(key)) return this.resolve(node.get(key));
        }
        return undefined;
      },
    };
  }
}

function decodeStream(stream: PDFRawStream): Uint8Array | undefined {
  try {
    return decodePDFRawStream(stream).decode();
  } catch {
    // A filter pdf-lib does not decode (DCT, JPX, JBIG2, CCITT, Crypt) or damaged data.
    return undefined;
  }
}
