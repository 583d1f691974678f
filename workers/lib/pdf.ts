// The one seam in front of pdf-lib (@cantoo/pdf-lib, the maintained fork).
// pdf-lib is unmaintained upstream and may need replacing, so nothing else in
// workers/ imports it: the render engine talks to these types only.
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from '@cantoo/pdf-lib';

export const STANDARD_FONT_NAMES = Object.values(StandardFonts) as readonly string[];

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

export interface Font {
  readonly name: string;
  widthOf(text: string, size: number): number;
  /** Height above the baseline at `size` (the ascender). */
  ascentAt(size: number): number;
  /** The characters of `text` this font cannot encode, each listed once. */
  missingCharacters(text: string): string[];
}

export interface Page {
  readonly width: number;
  readonly height: number;
  /** Draws one line of text; `y` is the baseline measured from the bottom edge (PDF space). */
  drawText(text: string, x: number, y: number, font: Font, size: number, color: Rgb): void;
}

export interface Document {
  addPage(width: number, height: number): Page;
  readonly pageCount: number;
  standardFont(name: string): Font;
  /** compress: object streams (PDF 1.5) and Flate; false keeps objects plain and readable. */
  save(compress: boolean): Promise<Uint8Array>;
}

class PdfLibFont implements Font {
  #characters: ReadonlySet<number> | undefined;

  constructor(
    readonly native: PDFFont,
    readonly name: string,
  ) {}

  widthOf(text: string, size: number): number {
    return this.native.widthOfTextAtSize(text, size);
  }

  ascentAt(size: number): number {
    return this.native.heightAtSize(size, { descender: false });
  }

  missingCharacters(text: string): string[] {
    this.#characters ??= new Set(this.native.getCharacterSet());
    const missing = new Set<string>();
    for (const char of text) {
      const codePoint = char.codePointAt(0) as number;
      // Line breaks and tabs are layout, not glyphs.
      if (codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x09) continue;
      if (!this.#characters.has(codePoint)) missing.add(char);
    }
    return [...missing];
  }
}

class PdfLibPage implements Page {
  constructor(private readonly page: PDFPage) {}

  get width(): number {
    return this.page.getWidth();
  }

  get height(): number {
    return this.page.getHeight();
  }

  drawText(text: string, x: number, y: number, font: Font, size: number, color: Rgb): void {
    this.page.drawText(text, { x, y, size, font: (font as PdfLibFont).native, color: rgb(color.r, color.g, color.b) });
  }
}

class PdfLibDocument implements Document {
  readonly #fonts = new Map<string, PdfLibFont>();

  constructor(private readonly doc: PDFDocument) {}

  get pageCount(): number {
    return this.doc.getPageCount();
  }

  addPage(width: number, height: number): Page {
    return new PdfLibPage(this.doc.addPage([width, height]));
  }

  standardFont(name: string): Font {
    let font = this.#fonts.get(name);
    if (font === undefined) {
      font = new PdfLibFont(this.doc.embedStandardFont(name as StandardFonts), name);
      this.#fonts.set(name, font);
    }
    return font;
  }

  save(compress: boolean): Promise<Uint8Array> {
    // objectsPerTick: Infinity — in a worker there is no event loop to yield to
    // (pdf-lib yields every 50 objects by default, which only slows us down).
    return this.doc.save({ useObjectStreams: compress, objectsPerTick: Number.POSITIVE_INFINITY });
  }
}

export async function createDocument(): Promise<Document> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer('Platen');
  doc.setCreator('Platen');
  return new PdfLibDocument(doc);
}
