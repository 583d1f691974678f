// The one seam in front of pdf-lib (@cantoo/pdf-lib, the maintained fork) and
// fontkit. pdf-lib is unmaintained upstream and may need replacing, so
// nothing else in workers/ imports either (fontkit sits in fonts-parse.ts,
// which only this module uses): the render engine lays pages out itself
// and hands this module finished content streams; pdf-lib only assembles
// objects (fonts, images, annotations, pages) and serialises.
//
// Why our own content streams: pdf-lib's drawText builds an operator object
// per call and re-encodes fonts per call; a dense 10-page table took ~85 ms
// that way against a few ms for the same glyphs written as one stream.
import { buildFacturXDescription, FACTUR_X_EXTENSION_SCHEMA, PDFDocument, PDFHexString, PDFName, StandardFonts, type PDFFont, type PDFImage, type PDFPage, type PDFRef } from '@cantoo/pdf-lib';
import { FontError, fontkitShim, parseFont, type ParsedFont } from './fonts-parse.js';
import { CustomFont } from './custom-font.js';
import { deflateWithZlib } from './pdf-deflate.js';
import { embedSubsetsFaster } from './pdf-font-embed.js';
import './pdf-stream-copy.js';
import './pdf-writer-speed.js';
import { passThroughPng } from './png.js';
import { metricsOf, StandardFont } from './standard-font.js';
import { writeOutline, type OutlineEntry } from './pdf-outline.js';
import { claimPdfALevelA, PDFUA_EXTENSION_SCHEMA, PDFUA_IDENTIFICATION, writeStructure, writeTaggedMetadata, type StructureTree } from './pdf-tagged.js';
import { writeAttachments, type Attachment } from './pdf-attachments.js';
import { writeCidSets } from './pdf-cidset.js';

export { FontError };
export type { AnnotationKid, ContentKid, StructureNode, StructureTree } from './pdf-tagged.js';
export type { OutlineEntry } from './pdf-outline.js';
export type { Attachment, AttachmentRelationship } from './pdf-attachments.js';

export const STANDARD_FONT_NAMES = Object.values(StandardFonts) as readonly string[];

/** A font usable on pages of one document. Sizes are in points; metrics are per point of font size. */
export interface Font {
  readonly name: string;
  /** Unique within the document; also the page resource name. */
  readonly key: string;
  readonly standard: boolean;
  /** Height above the baseline, per point of size. */
  readonly ascent: number;
  /** Depth below the baseline (positive), per point of size. */
  readonly descent: number;
  covers(codePoint: number): boolean;
  /** Throws FontError when a custom font's tables fail on this text. */
  widthOf(text: string, size: number): number;
  /** The text as a content-stream string operand (literal or hex), recording glyphs for subsetting. Throws FontError like widthOf. */
  encode(text: string): string;
}

export interface Image {
  readonly key: string;
  /** Intrinsic size in pixels. */
  readonly width: number;
  readonly height: number;
}

export interface LinkArea {
  /** PDF space: origin bottom-left, points. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly uri: string;
}

export interface PageContent {
  readonly width: number;
  readonly height: number;
  /** Content stream operators; font and image names are their keys. */
  readonly operators: string;
  readonly fonts: Iterable<Font>;
  readonly images: Iterable<Image>;
  readonly links: readonly LinkArea[];
}

export interface Metadata {
  readonly title?: string;
  readonly author?: string;
  readonly subject?: string;
  readonly keywords?: readonly string[];
  readonly language?: string;
}

/** Where text gets its fonts: a document being built, or a filled form's appearance streams (pdf-form-text.ts). */
export interface FontSource {
  standardFont(name: string): Font;
  /** A TrueType/OpenType font; parsed once per worker per content hash, subset when saved. Rejects with FontError. */
  customFont(bytes: Uint8Array): Promise<Font>;
}

export interface Document extends FontSource {
  /**
   * Whether the file may hold transparency (soft masks, alpha): false for
   * PDF/A-1 (ISO 19005-1 6.4), where images are drawn opaque (images.ts).
   */
  readonly transparency: boolean;
  png(bytes: Uint8Array): Promise<Image>;
  jpeg(bytes: Uint8Array): Promise<Image>;
  addPage(content: PageContent): void;
  setMetadata(metadata: Metadata): void;
  /**
   * Makes the file a tagged PDF when saved: the structure tree and /MarkInfo; with `pdfUa`, also the
   * PDF/UA identification with dc:title in XMP, and metadata must carry the title and language (setMetadata).
   */
  setStructure(tree: StructureTree): void;
  /** Gives the file an outline (bookmarks) of these entries, shown when it opens. */
  setOutline(entries: readonly OutlineEntry[]): void;
  /** Embeds these files as associated files (catalog /AF and the EmbeddedFiles name tree) when saved. */
  setAttachments(files: readonly Attachment[]): void;
  /**
   * Claims a Factur-X / ZUGFeRD hybrid invoice in the XMP packet of a PDF/A-3 file: the fx properties
   * naming the attached XML and its profile, and their PDF/A extension schema. Ignored without pdf_a.
   */
  setFacturX(claim: FacturX): void;
  /**
   * Compressed (createDocument's option): object streams (PDF 1.5) and Flate; otherwise plain and readable.
   * Rejects with FontError when a custom font cannot be embedded (subset): the client's font data is at fault.
   */
  save(): Promise<Uint8Array>;
}

// --- fonts -----------------------------------------------------------------

/**
 * The fonts of one pdf-lib document, each embedded once (a custom one as a
 * subset of the glyphs its texts encode) under a key unique in the
 * document: F1, F2, ... A new document's pages use them, and so do the
 * appearance streams of a filled form (pdf-form-text.ts), whose text the
 * render engine lays out.
 */
export class DocumentFonts implements FontSource {
  readonly #standard = new Map<string, StandardFont>();
  readonly #custom = new Map<ParsedFont, CustomFont>();
  readonly #natives = new Map<string, PDFFont>();
  #count = 0;

  constructor(private readonly doc: PDFDocument) {
    doc.registerFontkit(fontkitShim as never);
  }

  standardFont(name: string): Font {
    let font = this.#standard.get(name);
    if (font === undefined) {
      const native = this.doc.embedStandardFont(name as StandardFonts);
      const ascent = native.heightAtSize(1, { descender: false });
      font = new StandardFont(name, this.#nextKey(), ascent, native.heightAtSize(1) - ascent, metricsOf(name, native));
      this.#natives.set(font.key, native);
      this.#standard.set(name, font);
    }
    return font;
  }

  async customFont(bytes: Uint8Array): Promise<Font> {
    return this.embedded(bytes);
  }

  /** customFont with pdf-lib's font object, for the form seam, whose appearance providers take one. */
  async embedded(bytes: Uint8Array): Promise<CustomFont> {
    const parsed = parseFont(bytes);
    let font = this.#custom.get(parsed);
    if (font === undefined) {
      let native: PDFFont;
      try {
        // The shim hands pdf-lib our cached parse, so this costs no second parse.
        native = await this.doc.embedFont(parsed.bytes, { subset: true, customName: parsed.subsetName });
        embedSubsetsFaster(native);
      } catch (error) {
        throw new FontError('the font cannot be embedded in a PDF: a table the embedder reads is damaged or in a form it does not support; try another build of the font', libraryText(error));
      }
      const f = parsed.font;
      const em = f.unitsPerEm;
      font = new CustomFont(native, parsed, parsed.name, this.#nextKey(), f.ascent / em, -f.descent / em);
      this.#natives.set(font.key, native);
      this.#custom.set(parsed, font);
    }
    return font;
  }

  /** pdf-lib's font object behind a key this document gave out. */
  native(key: string): PDFFont {
    const native = this.#natives.get(key);
    if (native === undefined) throw new Error(`pdf: no font ${key} in this document`);
    return native;
  }

  /**
   * pdf-lib embeds fonts when saving: subsetting reads the glyph outlines
   * used, which no earlier step read. Embedding them first, one by one,
   * says which font failed; a failure is the font's, not ours.
   */
  /** The custom fonts embedded, each with the glyph count of its subset as the subsetter lists it (pdf-cidset.ts). */
  embeddedFonts(): Array<{ ref: PDFRef; fallbackCount: () => number | undefined }> {
    return [...this.#custom.values()].map((font) => ({ ref: font.native.ref, fallbackCount: () => font.subsetGlyphCount() }));
  }

  async embedAll(): Promise<void> {
    for (const font of this.#custom.values()) {
      try {
        await font.native.embed();
      } catch (error) {
        throw new FontError(`the font "${font.name}" cannot be embedded in a PDF: a glyph or table the subset needs is damaged; try another build of the font`, libraryText(error));
      }
    }
  }

  #nextKey(): string {
    return `F${++this.#count}`;
  }
}

// --- the document ---------------------------------------------------------

class PdfLibDocument implements Document {
  readonly #fonts: DocumentFonts;
  /** Page resources by key: images. */
  readonly #refs = new Map<string, PDFRef>();
  #images = 0;
  /** Pages and their link annotations in order, for the structure tree's references. */
  readonly #pageRefs: PDFRef[] = [];
  readonly #annotationRefs: PDFRef[][] = [];
  #structure: StructureTree | undefined;
  #outline: readonly OutlineEntry[] = [];
  #attachments: readonly Attachment[] = [];
  #facturX: FacturX | undefined;
  #metadata: Metadata = {};

  constructor(
    private readonly doc: PDFDocument,
    /** Content streams are Flate-encoded when compressing. */
    private readonly compress: boolean,
    /** PDF/A level to write (output.pdf_a), or undefined for plain PDF. */
    private readonly pdfA: PdfALevel | undefined,
    /** The creation date written to Info; PDF/A's XMP repeats it, and ModDate equals it. */
    private readonly createdAt: Date,
  ) {
    this.#fonts = new DocumentFonts(doc);
  }

  get transparency(): boolean {
    return this.pdfA === undefined || !this.pdfA.startsWith('1');
  }

  standardFont(name: string): Font {
    return this.#fonts.standardFont(name);
  }

  async customFont(bytes: Uint8Array): Promise<Font> {
    return this.#fonts.customFont(bytes);
  }

  async png(bytes: Uint8Array): Promise<Image> {
    const direct = passThroughPng(bytes);
    if (direct === undefined) return this.#image(await this.doc.embedPng(bytes));
    const context = this.doc.context;
    const stream = context.stream(direct.data, {
      Type: 'XObject',
      Subtype: 'Image',
      Width: direct.width,
      Height: direct.height,
      ColorSpace: direct.colors === 1 ? 'DeviceGray' : 'DeviceRGB',
      BitsPerComponent: direct.bitsPerComponent,
      Filter: 'FlateDecode',
      DecodeParms: { Predictor: 15, Colors: direct.colors, BitsPerComponent: direct.bitsPerComponent, Columns: direct.width },
    });
    return this.#register(context.register(stream), direct.width, direct.height);
  }

  async jpeg(bytes: Uint8Array): Promise<Image> {
    return this.#image(await this.doc.embedJpg(bytes));
  }

  addPage(content: PageContent): void {
    const page: PDFPage = this.doc.addPage([content.width, content.height]);
    const node = page.node;
    const context = this.doc.context;
    for (const font of content.fonts) node.setFontDictionary(PDFName.of(font.key), this.#fonts.native(font.key).ref);
    for (const image of content.images) node.setXObject(PDFName.of(image.key), this.#refs.get(image.key) as PDFRef);
    node.addContentStream(context.register(this.compress ? context.flateStream(content.operators) : context.stream(content.operators)));
    const annotations: PDFRef[] = [];
    this.#pageRefs.push(page.ref);
    this.#annotationRefs.push(annotations);
    for (const link of content.links) {
      const annotation = context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [link.x, link.y, link.x + link.width, link.y + link.height],
        Border: [0, 0, 0],
        // PDF/A-2 6.3.2: an annotation has flags, Print set (4); a plain PDF keeps pdf-lib's default (none).
        ...(this.pdfA === undefined ? {} : { F: 4 }),
        // A hex string: the URI's bytes can never close the string early. The
        // render schema has already normalised it to ASCII (WHATWG URL).
        A: { Type: 'Action', S: 'URI', URI: PDFHexString.of(Buffer.from(link.uri, 'latin1').toString('hex')) },
      });
      const ref = context.register(annotation);
      annotations.push(ref);
      node.addAnnot(ref);
    }
  }

  setMetadata(metadata: Metadata): void {
    this.#metadata = metadata;
    if (metadata.title !== undefined) this.doc.setTitle(metadata.title, { showInWindowTitleBar: true });
    if (metadata.author !== undefined) this.doc.setAuthor(metadata.author);
    if (metadata.subject !== undefined) this.doc.setSubject(metadata.subject);
    if (metadata.keywords !== undefined) this.doc.setKeywords([...metadata.keywords]);
    if (metadata.language !== undefined) this.doc.setLanguage(metadata.language);
  }

  async save(): Promise<Uint8Array> {
    await this.#fonts.embedAll();
    const pdfA = this.pdfA;
    // PDF/A-1 is PDF 1.4: no object streams or cross-reference streams (ISO 19005-1 6.1.4, veraPDF 6.1.4-1).
    const compress = this.compress && (pdfA === undefined || !pdfA.startsWith('1'));
    const structure = this.#structure;
    if (structure !== undefined) writeStructure(this.doc, structure, { pages: this.#pageRefs, annotations: this.#annotationRefs, objectStreams: compress });
    writeOutline(this.doc, this.#outline, this.#pageRefs);
    const pdfUa = structure?.pdfUa === true;
    if (pdfUa && this.pdfA === undefined) writeTaggedMetadata(this.doc, this.#metadata.title ?? '', this.#metadata.language ?? '');
    writeAttachments(this.doc, this.#attachments, this.createdAt);
    if (pdfA !== undefined) {
      // pdf-lib's conversion adds what ISO 19005 asks of the file itself:
      // a trailer /ID, an sRGB output intent with the ICC v2 profile pdf-lib
      // ships (sRGB IEC61966-2.1, freely redistributable), the header's
      // version (1.4 for part 1, 1.7 for parts 2 and 3), and the XMP packet
      // with pdfaid part and conformance level, kept equal to the Info
      // dictionary on save. The content is ours to keep compliant: every font
      // embedded (fonts.ts draws the standard families with DejaVu), no
      // transparency in part 1 (images.ts flattens alpha), annotations
      // printable, embedded files only in part 3 (schema.ts).
      this.doc.setModificationDate(this.createdAt);
      // A PDF/UA file adds its identification, a Factur-X invoice its fx properties; each schema described for PDF/A.
      const facturX = this.#facturX;
      const properties = [...(pdfUa ? [PDFUA_IDENTIFICATION] : []), ...(facturX === undefined ? [] : [facturXDescription(facturX)])];
      const schemas = [...(pdfUa ? [PDFUA_EXTENSION_SCHEMA] : []), ...(facturX === undefined ? [] : [FACTUR_X_EXTENSION_SCHEMA])];
      const extensions = schemas.length === 0 ? [] : [oneExtensionBag(schemas), ...properties];
      const part = pdfA[0] as '1' | '2' | '3';
      // pdf-lib's converter writes levels B and U (part 1: B); level A is converted at the level below and claimed after.
      const converted = part === '1' || pdfA[1] === 'b' ? 'B' : 'U';
      this.doc.convertToPDFA({ conformance: `${part}${converted}` as '1B' | '2B' | '2U' | '3B' | '3U', ...(extensions.length === 0 ? {} : { extensions }) });
      if (pdfA[1] === 'a') {
        // The engine makes every level A render tagged (schema.ts); an untagged one here would claim what it is not.
        if (structure === undefined) throw new Error(`PDF/A-${pdfA} without a structure tree`);
        claimPdfALevelA(this.doc, converted);
      }
      // ISO 19005-1 6.3.5: a subset CIDFont lists its CIDs in a CIDSet (optional in parts 2 and 3).
      if (part === '1') writeCidSets(this.doc, this.#fonts.embeddedFonts());
    }
    // objectsPerTick: Infinity: in a worker there is no event loop worth yielding
    // to (pdf-lib yields every 50 objects by default, which only slows us down).
    return this.doc.save({ useObjectStreams: compress, objectsPerTick: Number.POSITIVE_INFINITY });
  }

  setStructure(tree: StructureTree): void {
    this.#structure = tree;
  }

  setOutline(entries: readonly OutlineEntry[]): void {
    this.#outline = entries;
  }

  setAttachments(files: readonly Attachment[]): void {
    this.#attachments = files;
  }

  setFacturX(claim: FacturX): void {
    this.#facturX = claim;
  }

  #image(native: PDFImage): Image {
    return this.#register(native.ref, native.width, native.height);
  }

  #register(ref: PDFRef, width: number, height: number): Image {
    const key = `Im${++this.#images}`;
    this.#refs.set(key, ref);
    return { key, width, height };
  }
}

/**
 * PDF/A levels: part 1 (ISO 19005-1, PDF 1.4) B and A, parts 2 and 3 (ISO
 * 19005-2 and -3; 3 adds embedded files of any kind) B, U and A. A is the
 * level below (part 1: B; parts 2 and 3: U) with the structure tree a
 * tagged render writes.
 */
export type PdfALevel = '1b' | '1a' | '2b' | '2u' | '2a' | '3b' | '3u' | '3a';
export const PDF_A_LEVELS: readonly PdfALevel[] = ['1b', '1a', '2b', '2u', '2a', '3b', '3u', '3a'];

/** Factur-X 1.0 / ZUGFeRD 2.x profiles, as fx:ConformanceLevel writes them. */
export type FacturXProfile = 'MINIMUM' | 'BASIC WL' | 'BASIC' | 'EN 16931' | 'EXTENDED' | 'XRECHNUNG';

export interface FacturX {
  /** The attached invoice XML's name (fx:DocumentFileName). */
  readonly fileName: string;
  readonly profile: FacturXProfile;
  /** fx:Version, the Factur-X schema's version: "1.0". */
  readonly version: string;
}

/**
 * The fx properties of a Factur-X claim, as pdf-lib's embedFacturX writes
 * them: fx:DocumentType INVOICE, the file name, version and profile. Their
 * schema is described for PDF/A (ISO 19005-3 6.6.2.3) by pdf-lib's
 * FACTUR_X_EXTENSION_SCHEMA.
 */
function facturXDescription(claim: FacturX): string {
  return buildFacturXDescription({ fileName: claim.fileName, version: claim.version, documentType: 'INVOICE', conformanceLevel: claim.profile });
}

/**
 * Schema descriptions (each an rdf:Description holding one
 * pdfaExtension:schemas Bag) as one description with one Bag of them all:
 * pdfaExtension:schemas is one property of the packet, and two Bags in two
 * descriptions are that property given twice, of which an XMP reader keeps
 * one (our compliance-check found the second schema's properties
 * undescribed, 6.6.2.3.1-1, with the PDF/UA and Factur-X schemas side by
 * side).
 */
function oneExtensionBag(descriptions: readonly string[]): string {
  const items = descriptions.map((description) => {
    const start = description.indexOf('<rdf:Bag>');
    const end = description.lastIndexOf('</rdf:Bag>');
    // A bug, not a client's error: the descriptions are constants of this seam and pdf-lib.
    if (start < 0 || end < start) throw new Error('pdf: an extension schema description without its rdf:Bag');
    return description.slice(start + '<rdf:Bag>'.length, end);
  });
  const first = descriptions[0] as string;
  return `${first.slice(0, first.indexOf('<rdf:Bag>') + '<rdf:Bag>'.length)}${items.join('')}${first.slice(first.lastIndexOf('</rdf:Bag>'))}`;
}

export async function createDocument(options: { compress: boolean; pdfA?: PdfALevel }): Promise<Document> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  // Node's zlib is native; pdf-lib's own deflate (fflate) is JavaScript and
  // showed as ~10% of a custom-font page (the font subset stream).
  deflateWithZlib(doc.context);
  doc.setProducer('Platen');
  doc.setCreator('Platen');
  const created = new Date();
  doc.setCreationDate(created);
  return new PdfLibDocument(doc, options.compress, options.pdfA, created);
}

/** A library's message, bounded and printable, for a failure's `cause` (the server's log, never a response). */
export function libraryText(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/[^\x20-\x7e]/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
